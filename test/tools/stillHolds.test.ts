import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { failed, ok, runTool } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * A revision that names the dependents that still hold (issue 41, point 6): they are confirmed by
 * the writer as relay_confirm_fact would, never listed as stale, and what builds on them through them
 * stays current too; the reply lists what the revision did make stale, with its text. A name that is
 * not a dependent the revision makes stale is refused before anything is written.
 */
const save = (content: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by: "claude-desktop", session_id: "s1", ...extra }).pipe(
    Effect.map((r) => r.fact.id as string)
  )

const statuses = ok("relay_get_current_state", { status: "any", limit: 100 }).pipe(
  Effect.map((r) => new Map(r.facts.map((f): [string, string] => [f.id, f.status])))
)

layer(relayTestLayer("stillHolds"))("relay_save_fact still_holds", (it) => {
  it.effect("confirms the named dependents with the revision, lists the rest it made stale, refuses the wrong ones", () =>
    Effect.gen(function*() {
      const root = yield* save("HTTP client settings")
      const timeout = yield* save("The request timeout is 30 seconds", { parent_fact_id: root })
      const retries = yield* save("Retry three times with backoff", { parent_fact_id: timeout })
      const jitter = yield* save("Backoff adds random jitter", { parent_fact_id: retries })
      const logs = yield* save("Log every timeout at warn level", { parent_fact_id: timeout })
      const budget = yield* save("A page load waits at most 90 seconds in all", { parent_fact_id: timeout })
      const gone = yield* save("Timeouts page the on-call", { parent_fact_id: timeout })
      const below = yield* save("Paging goes through the old pager", { parent_fact_id: gone })
      yield* ok("relay_retract_fact", { fact_id: gone, reason: "never done", retracted_by: "cursor" })
      const other = yield* save("Unrelated: the office opens at nine")
      const before = yield* statuses

      const revise = (stillHolds: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => ({
        content: "The request timeout is 10 seconds",
        written_by: "cursor",
        session_id: "s2",
        supersedes: timeout,
        reason: "30 s held connections too long",
        still_holds: stillHolds,
        ...extra
      })
      // Not a dependent, already stale, the revised fact itself, retracted: each refused by position, nothing written.
      for (const [held, index] of [[[retries, other], 1], [[below], 0], [[timeout], 0], [[gone], 0]] as const) {
        const e = yield* failed("relay_save_fact", revise(held))
        expect(e.code).toBe("invalid_input")
        expect(e.message).toContain(`still_holds.${index}:`)
      }
      const alone = yield* failed("relay_save_fact", {
        content: "x",
        written_by: "cursor",
        session_id: "s2",
        still_holds: [retries]
      })
      expect([alone.code, alone.message.startsWith("still_holds:")]).toEqual(["invalid_input", true])
      expect(yield* statuses).toEqual(before)

      // A prefix as other id fields take it; retries' confirmation keeps jitter (built on it) current.
      const args = revise([retries.slice(0, 8), budget], { request_id: "timeout-10s" })
      const r = yield* runTool("relay_save_fact", args)
      expect(r.isError).toBeFalsy()
      const out = r.structuredContent as {
        revision: {
          stale: ReadonlyArray<{ fact: { id: string } }>
          stale_total: number
          still_holds: ReadonlyArray<{ id: string; status: string }>
        }
      }
      expect(out.revision.still_holds.map((f) => [f.id, f.status]).sort()).toEqual(
        [[retries, "active"], [budget, "active"]].sort()
      )
      // The retracted one is listed too, as any revision lists it (its status says retracted).
      expect(out.revision.stale.map((d) => d.fact.id)).toEqual([logs, gone])
      expect(out.revision.stale_total).toBe(2)
      const text = r.content[0]!.text!
      expect(text).toContain("Log every timeout at warn level")
      expect(text).toMatch(/Still holds \(confirmed by you\) \(2\):/)

      const after = yield* statuses
      expect([retries, jitter, budget, logs, timeout].map((id) => after.get(id))).toEqual([
        "active",
        "active",
        "active",
        "stale",
        "superseded"
      ])
      // Recorded as relay_confirm_fact records it: by the revision's writer, for its reason.
      const c = yield* ok("relay_confirm_fact", { fact_id: retries, reason: "again", confirmed_by: "zed" })
      expect([c.already_confirmed, c.confirmed_by, c.reason]).toEqual([
        true,
        "cursor",
        "30 s held connections too long"
      ])

      // A retry answers what landed, once.
      const again = yield* ok("relay_save_fact", args)
      expect(again.revision?.still_holds?.map((f) => f.id).sort()).toEqual([retries, budget].sort())
      expect(again.revision?.stale.map((d) => d.fact.id)).toEqual([logs, gone])
      expect((yield* statuses).size).toBe(after.size)
    }))

  it.effect("a retry of a revision that landed without its confirmations confirms them then", () =>
    Effect.gen(function*() {
      const port = yield* save("The service listens on port 8080")
      const probe = yield* save("Health checks probe 8080", { parent_fact_id: port })
      const args = {
        content: "The service listens on port 9090",
        written_by: "cursor",
        session_id: "s2",
        supersedes: port,
        reason: "8080 is taken",
        request_id: "port-9090"
      }
      // As if the first try's confirmations were lost: the revision landed, probe is stale from its stamp.
      const first = yield* ok("relay_save_fact", args)
      expect(first.revision?.stale.map((d) => d.fact.id)).toEqual([probe])
      const retry = yield* ok("relay_save_fact", { ...args, still_holds: [probe] })
      expect(retry.fact.id).toBe(first.fact.id)
      expect(retry.revision?.still_holds?.map((f) => [f.id, f.status])).toEqual([[probe, "active"]])
      expect(retry.revision?.stale).toEqual([])
      expect((yield* statuses).get(probe)).toBe("active")
    }))
})
