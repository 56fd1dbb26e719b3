import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { verifyStored } from "../../src/layers/factStore/verifyStored.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { failed, ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

const save = (content: string, extra: Record<string, unknown> = {}) =>
  ok("relay_save_fact", { content, written_by: "claude-desktop", session_id: "s1", ...extra })

/** relay_save_fact with builds_on (issue 23, item 3): one fact on several parents. */
layer(relayTestLayer("merges"))("a save on several parents", (it) => {
  it.effect("links every parent, forks and repeats under each, and inherits the earliest staleness", () =>
    Effect.gen(function*() {
      const db = yield* save("Jobs run on Postgres")
      const workers = yield* save("Workers are stateless")
      const a = yield* save("Lease jobs with SKIP LOCKED", { parent_fact_id: db.fact.id })
      // Under the second parent a choice forks with the merge only when they share 2 stemmed terms (issue 41).
      const b = yield* save("Workers lease jobs in batches of ten", { parent_fact_id: workers.fact.id, kind: "choice" })
      yield* save("Workers poll every second", { parent_fact_id: workers.fact.id, kind: "choice" })
      const m = yield* save("Lease jobs with advisory locks", {
        builds_on: [db.fact.id, workers.fact.id, db.fact.id]
      })
      expect(m.fact.parent_id).toBe(db.fact.id)
      expect(m.fact.builds_on).toEqual([db.fact.id, workers.fact.id])
      expect(a.fact.builds_on).toBeUndefined()
      expect(m.fork!.siblings.map((s) => s.id)).toEqual([a.fact.id])
      expect(m.also_under!.map((u) => [u.parent_id, u.siblings.map((s) => [s.id, s.parent_id])])).toEqual([
        [workers.fact.id, [[b.fact.id, workers.fact.id]]]
      ])
      expect(m.fork!.siblings.map((s) => s.parent_id)).toEqual([db.fact.id])
      // A later child of the second parent sees the merge as a sibling; a repeat is a duplicate there.
      const again = yield* save("lease jobs with ADVISORY locks", { parent_fact_id: workers.fact.id })
      expect(again.duplicate_of!.id).toBe(m.fact.id)
      // Superseding the second parent makes the merge stale.
      yield* save("Workers keep a local cache", { supersedes: workers.fact.id, reason: "cache needed" })
      const state = yield* ok("relay_get_current_state", { status: "stale" })
      expect(state.facts.map((f) => f.id)).toContain(m.fact.id)
      // A fact saved on the merge and a fresh root inherits the merge's staleness.
      const fresh = yield* save("Queues are named per tenant")
      const below = yield* save("Advisory lock keys are per tenant", { builds_on: [fresh.fact.id, m.fact.id] })
      expect(below.fact.status).toBe("stale")
    }))

  it.effect("refuses both parent forms, unknown parents and too many, writing nothing", () =>
    Effect.gen(function*() {
      const r = yield* save("A root")
      const both = yield* failed("relay_save_fact", {
        content: "x",
        written_by: "w",
        session_id: "s",
        parent_fact_id: r.fact.id,
        builds_on: [r.fact.id]
      })
      expect(both.code).toBe("invalid_input")
      expect(both.message).toContain("builds_on")
      const missing = yield* failed("relay_save_fact", {
        content: "y",
        written_by: "w",
        session_id: "s",
        builds_on: [r.fact.id, "3f1c1a52-2b7a-4a53-9f57-0d7d0f0f0f0f"]
      })
      expect(missing.code, missing.message).toBe("fact_not_found")
      expect(missing.message).toContain("builds_on")
      const nine = yield* failed("relay_save_fact", {
        content: "z",
        written_by: "w",
        session_id: "s",
        builds_on: Array.from({ length: 9 }, () => r.fact.id)
      })
      expect(nine.code).toBe("invalid_input")
      const state = yield* ok("relay_get_current_state", { limit: 100 })
      expect(state.facts.map((f) => f.content)).not.toContain("y")
    }))

  it.effect("a ladder of merges: every fact below a decision goes stale, and a save past the merge depth is refused", () =>
    Effect.gen(function*() {
      // Each level builds on both facts of the level above: 2^levels paths, few facts.
      const top = yield* save("ladder top")
      let level = [top.fact.id, (yield* save("ladder side", { parent_fact_id: top.fact.id })).fact.id]
      const all: Array<string> = [...level]
      for (let i = 0; i < 4; i++) {
        const left = yield* save(`left ${i}`, { builds_on: [level[0]!, level[1]!], kind: "detail" })
        const right = yield* save(`right ${i}`, { builds_on: [level[1]!, level[0]!], kind: "detail" })
        level = [left.fact.id, right.fact.id]
        all.push(...level)
      }
      const tooDeep = yield* failed("relay_save_fact", {
        content: "one more rung",
        written_by: "w",
        session_id: "s",
        builds_on: [level[0]!, level[1]!]
      })
      expect(tooDeep.code).toBe("invalid_input")
      expect(tooDeep.message).toContain("one above another")
      // On its first parent alone it may still be saved.
      yield* save("one more rung", { parent_fact_id: level[0]! })
      yield* ok("relay_retract_fact", { fact_id: top.fact.id, reason: "wrong", retracted_by: "w" })
      const stale = yield* ok("relay_get_current_state", { status: "stale", limit: 100 })
      const staleIds = new Set(stale.facts.map((f) => f.id))
      for (const id of all.slice(1)) expect(staleIds.has(id), id).toBe(true)
    }))

  it.effect("merges nested on one line, each on the one before: the fifth is refused, and a retraction reaches all", () =>
    Effect.gen(function*() {
      // Counted as extra-parent hops only, every m_i sat one merge deep and a walk down read the
      // line below m_1 once for every merge on it (0.63 s at 500 merges, 6.6 s at 1,500).
      const x = yield* save("The importer reads CSV")
      const line = [x.fact.id]
      const merges: Array<string> = []
      let last = x.fact.id
      for (let i = 0; i < 4; i++) {
        const h = yield* save(`CSV column ${i} is a date`, { parent_fact_id: line.at(-1)!, kind: "detail" })
        line.push(h.fact.id)
        const m = yield* save(`Dates of column ${i} are parsed as UTC`, {
          builds_on: [last, h.fact.id],
          kind: "detail"
        })
        merges.push(m.fact.id)
        last = m.fact.id
      }
      const h5 = yield* save("CSV column 5 is a date", { parent_fact_id: line.at(-1)!, kind: "detail" })
      const fifth = yield* failed("relay_save_fact", {
        content: "Dates of column 5 are parsed as UTC",
        written_by: "w",
        session_id: "s",
        builds_on: [last, h5.fact.id]
      })
      expect(fifth.code).toBe("invalid_input")
      expect(fifth.message).toContain("builds_on")
      // A one-parent fact below the fourth merge is no merge: it is saved.
      const below = yield* save("Invalid dates are skipped", { parent_fact_id: last, kind: "detail" })
      yield* ok("relay_retract_fact", { fact_id: x.fact.id, reason: "the importer reads JSON", retracted_by: "w" })
      const stale = new Set(
        (yield* ok("relay_get_current_state", { status: "stale", limit: 100 })).facts.map((f) => f.id)
      )
      for (const id of [...line.slice(1), ...merges, h5.fact.id, below.fact.id]) expect(stale.has(id), id).toBe(true)
      const impact = yield* ok("relay_get_impact", { fact_id: x.fact.id, limit: 100 })
      expect(impact.dependents.map((d) => d.fact.id).sort()).toEqual(
        [...line.slice(1), ...merges, h5.fact.id, below.fact.id].sort()
      )
    }))

  it.effect("a confirmation refreshes what builds on the confirmed fact alone, not a merge saved before it", () =>
    Effect.gen(function*() {
      const a = yield* save("Sessions live in Postgres")
      const b = yield* save("Session rows expire after 30 days", { parent_fact_id: a.fact.id })
      const b2 = yield* save("Expired rows are deleted nightly", { parent_fact_id: b.fact.id })
      const c = yield* save("Audit logs are kept for a year")
      const m = yield* save("Expired sessions are archived to the audit log", { builds_on: [b.fact.id, c.fact.id] })
      yield* save("Sessions live in Redis", { supersedes: a.fact.id, reason: "latency" })
      const confirmed = yield* ok("relay_confirm_fact", {
        fact_id: b.fact.id,
        reason: "still 30 days",
        confirmed_by: "w"
      })
      expect(confirmed.fact.status).toBe("active")
      const stale = new Set(
        (yield* ok("relay_get_current_state", { status: "stale", limit: 100 })).facts.map((f) => f.id)
      )
      expect(stale.has(b2.fact.id)).toBe(false)
      expect(stale.has(m.fact.id)).toBe(true)
      const m2 = yield* save("Archived sessions are compressed", { builds_on: [b.fact.id, c.fact.id] })
      expect(m2.fact.status).toBe("active")
      yield* ok("relay_confirm_fact", { fact_id: m.fact.id, reason: "archive holds", confirmed_by: "w" })
      const after = new Set(
        (yield* ok("relay_get_current_state", { status: "stale", limit: 100 })).facts.map((f) => f.id)
      )
      expect(after.has(m.fact.id)).toBe(false)
    }))

  it.effect("impact and a revision's stale list reach what builds on a fact through an extra parent", () =>
    Effect.gen(function*() {
      const api = yield* save("The API is REST")
      const auth = yield* save("Auth uses OAuth")
      const scope = yield* save("Scopes are per resource", { parent_fact_id: auth.fact.id })
      const m = yield* save("Each REST resource declares its scope", { builds_on: [api.fact.id, scope.fact.id] })
      const below = yield* save("Scope checks run in middleware", { parent_fact_id: m.fact.id })
      const imp = yield* ok("relay_get_impact", { fact_id: auth.fact.id })
      expect(imp.dependents.map((d) => [d.fact.id, d.distance])).toEqual([
        [scope.fact.id, 1],
        [m.fact.id, 2],
        [below.fact.id, 3]
      ])
      // Reached through its extra parent, the merge still names its first parent, and all of them.
      expect(imp.dependents.map((d) => [d.fact.parent_id, d.fact.builds_on])).toEqual([
        [auth.fact.id, undefined],
        [api.fact.id, [api.fact.id, scope.fact.id]],
        [m.fact.id, undefined]
      ])
      const ctx = yield* ok("relay_get_context", { fact_id: below.fact.id })
      expect(ctx.chain.map((f) => [f.id, f.parent_id])).toEqual([
        [api.fact.id, null],
        [auth.fact.id, null],
        [scope.fact.id, auth.fact.id],
        [m.fact.id, api.fact.id],
        [below.fact.id, m.fact.id]
      ])
      const rev = yield* save("Auth uses signed cookies", { supersedes: auth.fact.id, reason: "first-party only" })
      expect(rev.revision!.stale.map((d) => d.fact.id)).toEqual([scope.fact.id, m.fact.id, below.fact.id])
    }))

  it.effect("a merge is in the conflicts of its extra parent, and is recorded compatible with a sibling there", () =>
    Effect.gen(function*() {
      const cache = yield* save("Responses are cached at the edge")
      const ttl = yield* save("Cache TTL is 60 s", { parent_fact_id: cache.fact.id, kind: "choice" })
      const other = yield* save("Cached pages vary by locale")
      const m = yield* save("Cache TTL is 5 minutes per locale", {
        builds_on: [other.fact.id, cache.fact.id],
        kind: "choice"
      })
      expect(m.also_under!.map((u) => u.siblings.map((f) => f.id))).toEqual([[ttl.fact.id]])
      const open = yield* ok("relay_detect_conflicts", {})
      const under = open.conflicts.find((c) => c.parent.id === cache.fact.id)
      expect(under?.children.map((f) => f.id).sort()).toEqual([ttl.fact.id, m.fact.id].sort())
      yield* ok("relay_resolve_conflict", {
        outcome: "compatible",
        fact_ids: [ttl.fact.id, m.fact.id],
        reason: "default and per-locale",
        resolved_by: "w"
      })
      const after = yield* ok("relay_detect_conflicts", {})
      expect(after.conflicts.map((c) => c.parent.id)).not.toContain(cache.fact.id)
      // The record joins the pair under the parent they share: under the merge's other parent a
      // sibling that differs from it is in an open pair with it (the record once counted there too,
      // leaving the merge out of that pair).
      const locale = yield* save("Pages are cached per language", { parent_fact_id: other.fact.id, kind: "choice" })
      expect(locale.fork!.siblings.map((f) => f.id)).toEqual([m.fact.id])
      const later = yield* ok("relay_detect_conflicts", {})
      expect(later.conflicts.find((c) => c.parent.id === other.fact.id)?.children.map((f) => f.id).sort()).toEqual(
        [locale.fact.id, m.fact.id].sort()
      )
      // Two records of the merge under its first parent outnumber nothing under the other: a write
      // that settles the other parent's window (a retraction there) leaves it open.
      const ttl2 = yield* save("Cache TTL is 1 hour for images", { parent_fact_id: cache.fact.id, kind: "choice" })
      yield* ok("relay_resolve_conflict", {
        outcome: "compatible",
        fact_ids: [ttl2.fact.id, m.fact.id],
        reason: "images apart",
        resolved_by: "w"
      })
      const stray = yield* save("Pages are never cached", { parent_fact_id: other.fact.id, kind: "choice" })
      yield* ok("relay_retract_fact", { fact_id: stray.fact.id, reason: "typo", retracted_by: "w" })
      const settled = yield* ok("relay_detect_conflicts", {})
      expect(settled.conflicts.find((c) => c.parent.id === other.fact.id)?.children.map((f) => f.id).sort()).toEqual(
        [locale.fact.id, m.fact.id].sort()
      )
    }))

  it.effect("a revision of a merge keeps all its parents unless given, and may not build on what it overturns", () =>
    Effect.gen(function*() {
      const x = yield* save("Builds run on CI")
      const y = yield* save("Artifacts go to S3")
      const m = yield* save("CI uploads artifacts to S3", { builds_on: [x.fact.id, y.fact.id] })
      const below = yield* save("Uploads are gzipped", { parent_fact_id: m.fact.id })
      const r = yield* save("CI uploads artifacts to R2", { supersedes: m.fact.id, reason: "egress cost" })
      expect(r.fact.builds_on).toEqual([x.fact.id, y.fact.id])
      expect(r.revision!.stale.map((d) => d.fact.id)).toEqual([below.fact.id])
      const onIt = yield* failed("relay_save_fact", {
        content: "CI uploads to GCS",
        written_by: "w",
        session_id: "s",
        supersedes: m.fact.id,
        reason: "r",
        builds_on: [x.fact.id, below.fact.id]
      })
      expect(onIt.code).toBe("invalid_input")
      expect(onIt.message).toContain("builds_on")
    }))

  // Last in the file: it reads every merge the cases above wrote (one graph for the file).
  it.effect("check-db --verify finds every merge above as its edges say, and a merge_of set by hand", () =>
    Effect.gen(function*() {
      const db = yield* GraphDatabase
      const verify = verifyStored(db)
      const clean = yield* verify
      expect(clean.examples).toEqual([])
      expect(clean.facts).toBeGreaterThan(20)
      const b = yield* save("Batch size is 500")
      const c = yield* save("Imports read CSV")
      const m = yield* save("Batches of 500 rows are imported as CSV", { builds_on: [b.fact.id, c.fact.id] })
      yield* db.write("MATCH (f:Fact {id: $id}) SET f.merge_of = 'elsewhere'", { id: m.fact.id })
      const found = yield* verify
      expect(found.examples).toEqual([{ id: m.fact.id, field: "merge_of", stored: "elsewhere", expected: m.fact.id }])
    }))
})
