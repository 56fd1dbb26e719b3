import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { ok, runTool } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/**
 * Issue 23's scripted session: a 220-fact memory written over two days by claude-desktop, cursor and
 * zed (threads with chains up to 12 deep, details saved as details, 8 real disagreements of which 3
 * are decided, 3 forks of details recorded as compatible, 2 retractions), then zed does the six
 * tasks an assistant does, each in at most two calls, and gets the right answer from each.
 */
const writers = ["claude-desktop", "cursor", "zed"] as const
const hour = 3_600_000
const day1 = Date.parse("2026-06-01T09:00:00Z")

layer(relayTestLayer("assistant_session"))("an assistant's session on a 220-fact memory", (it) => {
  it.effect(
    "sees exactly the real disagreements, revises in one call, and does each of six tasks in two calls at most",
    () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(day1)
        let saves = 0
        const save = (
          content: string,
          parent: string | null,
          kind: "detail" | "choice" | null,
          by = writers[saves % 3]!
        ) =>
          Effect.tap(
            ok("relay_save_fact", {
              content,
              written_by: by,
              session_id: `${by}:s${saves % 7}`,
              ...(parent === null ? {} : { parent_fact_id: parent }),
              ...(kind === null ? {} : { kind })
            }),
            () => Effect.sync(() => saves++)
          ).pipe(Effect.map((r) => r.fact.id))

        // Day 1. Five threads, each a chain of details (12 deep for the longest), with forks below.
        const topics = ["web app", "database", "auth", "deploys", "search"]
        const roots: Array<string> = []
        const chains: Array<Array<string>> = []
        for (const [t, topic] of topics.entries()) {
          const root = yield* save(`The ${topic} thread: decisions about the ${topic}`, null, null)
          roots.push(root)
          const chain = [root]
          for (let d = 1; d < 2 + t * 2.5; d++) {
            chain.push(
              yield* save(`${topic} step ${d}: detail number ${d} of the ${topic} plan`, chain.at(-1)!, "detail")
            )
          }
          chains.push(chain)
        }
        // The web app's seven details under its root: none of them a conflict.
        for (
          const d of [
            "feature flags",
            "i18n",
            "component tests",
            "code-splitting",
            "a design system",
            "SSR off",
            "Vite"
          ]
        ) {
          yield* save(`The web app uses ${d}`, roots[0]!, "detail")
        }
        // Eight real disagreements: two choices under one parent each.
        const forks: Array<{ parent: string; a: string; b: string }> = []
        for (let i = 0; i < 8; i++) {
          const chain = chains[i % chains.length]!
          const parent = yield* save(`Question ${i}: which tool runs job ${i}?`, chain[i % chain.length]!, "detail")
          const a = yield* save(`Option A for question ${i}: use tool alpha-${i}`, parent, "choice")
          const b = yield* save(`Option B for question ${i}: use tool beta-${i}`, parent, "choice")
          forks.push({ parent, a, b })
        }
        // Three forks of details that add up, recorded as compatible.
        for (let i = 0; i < 3; i++) {
          const parent = chains[i]!.at(-1)!
          const x = yield* save(`Log line ${i} carries the request id`, parent, null)
          const y = yield* save(`Log line ${i} is JSON, one object per line`, parent, null)
          yield* ok("relay_resolve_conflict", {
            outcome: "compatible",
            fact_ids: [x, y],
            reason: "both hold: one is what a line carries, the other its format",
            resolved_by: "cursor"
          })
        }
        // Three decisions; the refresh-token question's winner has facts building on it.
        const refresh = chains[2]![1]!
        const cookies = yield* save("Store refresh tokens in httpOnly cookies", refresh, "choice", "claude-desktop")
        const redis = yield* save("Store refresh tokens in Redis", refresh, "choice", "cursor")
        const ttl = yield* save("Key refresh tokens in Redis by user id with a 30-day TTL", redis, "detail", "cursor")
        yield* save("Evict expired refresh tokens with Redis key expiry", ttl, "detail", "cursor")
        yield* ok("relay_resolve_conflict", {
          winner_fact_id: redis,
          loser_fact_id: cookies,
          reason: "Redis wins because we need instant revocation",
          resolved_by: "claude-desktop"
        })
        for (const f of forks.slice(0, 2)) {
          yield* ok("relay_resolve_conflict", {
            winner_fact_id: f.b,
            loser_fact_id: f.a,
            reason: "beta fits",
            resolved_by: "zed"
          })
        }
        // Two retractions of details.
        for (const chain of chains.slice(3, 5)) {
          yield* ok("relay_retract_fact", {
            fact_id: chain.at(-1)!,
            reason: "written in error",
            retracted_by: "cursor"
          })
        }
        // Pad to 220 with details along the chains, one per hour of the day.
        while (saves < 200) {
          const chain = chains[saves % chains.length]!
          yield* save(
            `Note ${saves} on the ${topics[saves % topics.length]} work`,
            chain[saves % chain.length]!,
            "detail"
          )
          if (saves % 20 === 0) yield* TestClock.adjust(hour)
        }
        const yesterday = new Date(day1 + 12 * hour).toISOString()

        // Day 2.
        yield* TestClock.setTime(day1 + 24 * hour)
        while (saves < 220) yield* save(`Day two note ${saves} on the search work`, chains[4]![1]!, "detail", "cursor")

        const open = forks.slice(2)
        const openParents = new Set(open.map((f) => f.parent))

        // 1. The first briefing: one call, with exactly the open disagreements.
        const first = yield* ok("relay_get_briefing", { my_name: "zed", since: new Date(day1 - hour).toISOString() })
        expect(new Set(first.open_conflicts.map((c) => c.parent.id))).toEqual(openParents)
        // detect_conflicts agrees: no detail, no compatible pair, no decided fork is a conflict.
        const conflicts = yield* ok("relay_detect_conflicts", { limit: 100 })
        expect(new Set(conflicts.conflicts.map((c) => c.parent.id))).toEqual(openParents)
        for (const c of conflicts.conflicts) {
          const fork = open.find((f) => f.parent === c.parent.id)!
          expect(c.children.map((f) => f.id).sort()).toEqual([fork.a, fork.b].sort())
        }

        // 2. The delta: zed's automatic briefing after cursor saves two facts and decides one fork.
        // zed reads everything first, page after page, as its continuations say.
        let page = yield* ok("relay_get_briefing", { my_name: "zed" })
        for (let i = 0; page.next_cursor !== null && i < 20; i++) {
          page = yield* ok("relay_get_briefing", { my_name: "zed", cursor: page.next_cursor })
        }
        yield* TestClock.adjust(hour)
        const late = yield* save("Search results are cached for 60 s", chains[4]![2]!, "detail", "cursor")
        const later = yield* save("The cache is keyed by the normalised query", late, "detail", "cursor")
        yield* ok("relay_resolve_conflict", {
          winner_fact_id: open[0]!.a,
          loser_fact_id: open[0]!.b,
          reason: "alpha is what we run",
          resolved_by: "cursor"
        })
        const delta = yield* ok("relay_get_briefing", { my_name: "zed" })
        expect(delta.new_facts.map((f) => f.id)).toEqual([late, later])
        expect(delta.decisions).toHaveLength(1)

        // 3. Nothing new: one call, a short reply.
        const quiet = yield* runTool("relay_get_briefing", { my_name: "zed" })
        expect(quiet.isError).toBeFalsy()
        expect(countTokens(quiet.content[0]?.text ?? "")).toBeLessThanOrEqual(100)

        // 4. "What did we decide about refresh tokens?": one search, the winner first with its decision.
        const decided = yield* ok("relay_search", { query: "what did we decide about refresh tokens" })
        const top = decided.hits.find((h) => h.fact.id === redis)
        expect(top, "the winner is among the hits").toBeDefined()
        expect(top!.supersedes.map((d) => d.loser_id)).toEqual([cookies])

        // 5. "What breaks if we overturn Redis?": a search, then its impact.
        const found = yield* ok("relay_search", { query: "refresh tokens in Redis" })
        // The assistant picks the decision from the first few hits (the TTL detail matches as well).
        const target = found.hits.slice(0, 3).find((h) => h.fact.content === "Store refresh tokens in Redis")?.fact.id
        expect(target).toBe(redis)
        const impact = yield* ok("relay_get_impact", { fact_id: target! })
        expect(impact.dependents.map((d) => d.fact.content).sort()).toEqual([
          "Evict expired refresh tokens with Redis key expiry",
          "Key refresh tokens in Redis by user id with a 30-day TTL"
        ])

        // 6. "The state of the database thread as of yesterday": one call, nothing from another thread,
        // nothing written after, every fact of it that was current then.
        const state = yield* ok("relay_get_current_state", { thread: chains[1]![1]!, as_of: yesterday, limit: 100 })
        const stamps = state.facts.map((f) => Date.parse(f.created_at))
        expect(Math.max(...stamps)).toBeLessThanOrEqual(Date.parse(yesterday))
        const whole = yield* ok("relay_get_current_state", { thread: roots[1]!, status: "any", limit: 100 })
        const inThread = new Set(whole.facts.map((f) => f.id))
        expect(state.facts.every((f) => inThread.has(f.id))).toBe(true)
        expect(state.facts.some((f) => f.id === chains[0]![0])).toBe(false)
        expect(state.facts.length).toBeGreaterThan(chains[1]!.length)

        // A revision is one call: the new fact, its SUPERSEDES and what it made stale.
        const revised = yield* ok("relay_save_fact", {
          content: "Key refresh tokens in Redis by user id with a 14-day TTL",
          written_by: "zed",
          session_id: "zed:revise",
          kind: "detail",
          supersedes: ttl,
          reason: "30 days outlives a stolen laptop"
        })
        expect(revised.revision!.superseded.id).toBe(ttl)
        expect(revised.revision!.stale.map((d) => d.fact.content)).toEqual([
          "Evict expired refresh tokens with Redis key expiry"
        ])
        expect(saves).toBeGreaterThanOrEqual(220)
      }),
    120_000
  )

  it.effect(
    "a memory written as the descriptions say shows every real disagreement as a conflict, and none other",
    () =>
      Effect.gen(function*() {
        // Each writer picks `kind` as relay_save_fact's description says (choice: an option; detail:
        // adds to its parent; contradicts: a sibling it disagrees with), and nothing else.
        yield* TestClock.setTime(day1 + 3 * 24 * hour)
        const save = (
          content: string,
          parent: string | null,
          kind: "detail" | "choice" | null,
          by: string,
          contradicts: ReadonlyArray<string> = []
        ) =>
          Effect.map(
            ok("relay_save_fact", {
              content,
              written_by: by,
              session_id: `${by}:schema`,
              ...(parent === null ? {} : { parent_fact_id: parent }),
              ...(kind === null ? {} : { kind }),
              ...(contradicts.length === 0 ? {} : { contradicts })
            }),
            (r) => r.fact.id
          )
        const root = yield* save("The schema thread: how our tables are laid out", null, null, "claude-desktop")
        // 1. A statement its writer saved as a detail, and an option against it saved as a choice
        // (issue 41's UUIDv7 / bigserial case): the choice is compared with every sibling.
        const uuid = yield* save("New tables use UUIDv7 primary keys", root, "detail", "claude-desktop")
        const bigserial = yield* save("Use bigserial primary keys for new tables", root, "choice", "cursor")
        // 2. A detail that says which sibling it disagrees with.
        const soft = yield* save("Deleted rows stay, marked by a deleted_at column", root, "detail", "cursor")
        const hard = yield* save(
          "Rows are removed on delete; an audit table keeps their history",
          root,
          "detail",
          "zed",
          [soft]
        )
        // 3. Two options of one question.
        const question = yield* save("Which migration tool do we adopt?", root, "detail", "zed")
        const flyway = yield* save("Run migrations with Flyway", question, "choice", "zed")
        const atlas = yield* save("Run migrations with Atlas", question, "choice", "cursor")
        // Details that add to their parent, some sharing a word with a sibling: none disagrees.
        const under = yield* save(
          "UUIDv7 keys are generated in the application, not the database",
          uuid,
          "detail",
          "claude-desktop"
        )
        const foreign = yield* save("Foreign keys carry an index each", root, "detail", "zed")
        const utc = yield* save("Timestamps are stored in UTC", root, "detail", "claude-desktop")
        const checksum = yield* save("Each migration file carries a checksum", question, "detail", "zed")

        const found = yield* ok("relay_detect_conflicts", { thread: root, limit: 100 })
        const byParent = new Map(found.conflicts.map((c) => [c.parent.id, c.children.map((f) => f.id).sort()]))
        expect(byParent).toEqual(
          new Map([
            [root, [uuid, bigserial, soft, hard].sort()],
            [question, [flyway, atlas].sort()]
          ])
        )
        for (const quiet of [under, foreign, utc, checksum]) {
          expect([...byParent.values()].flat()).not.toContain(quiet)
        }
        // The first briefing of a reader who has seen none of it shows the same two.
        const briefing = yield* ok("relay_get_briefing", {
          my_name: "reader",
          thread: root,
          since: new Date(day1 + 3 * 24 * hour - hour).toISOString()
        })
        expect(new Set(briefing.open_conflicts.map((c) => c.parent.id))).toEqual(new Set([root, question]))
      }),
    60_000
  )
})
