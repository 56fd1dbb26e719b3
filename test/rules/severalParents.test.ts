import { describe, expect, it } from "@effect/vitest"
import {
  ancestors,
  asOf,
  clusters,
  compatibleViolation,
  context,
  type GraphModel,
  impact,
  inheritedStaleSince,
  isStale,
  openConflicts,
  parentsOf,
  revisionParents,
  revisionViolation,
  saveOutcomes,
  staleReasons,
  staleSince,
  thread
} from "../../src/domain/model/index.js"
import { memoryArb } from "../support/memoryArb.js"
import { propertyRuns } from "../support/propertyRuns.js"

/**
 * The pure model with facts that build on several parents (issue 23, item 3): staleness flows down
 * every parent, a confirmation covers what came before it along every path through the confirmed
 * fact that passes no merge saved before the confirmation, forks count every parent, and threads
 * and clusters follow the first parent only. Held here to an oracle spelled apart from status.ts:
 * it enumerates the paths up (small graphs only).
 */

/** Up to 3 parents a fact (a parent may be named twice), up to 16 facts: few enough to enumerate every path. */
const memory = memoryArb(16, 3)

/** Every path up from `id` (the fact first), by enumeration. */
const pathsUp = (model: GraphModel, id: string): Array<Array<string>> => {
  const facts = new Map(model.facts.map((f) => [f.id, f]))
  const ps = parentsOf(facts.get(id))
  return ps.length === 0 ? [[id]] : [[id], ...ps.flatMap((p) => pathsUp(model, p).map((up) => [id, ...up]))]
}

/**
 * The rule, path by path: a stamp on an ancestor counts when some path up to it has no blocker. A
 * confirmation of a fact x on the path (below the top) blocks the stamp when it is stamped after
 * it and every merge (two or more parents) on the path below x, down to the fact, was saved after
 * the confirmation.
 */
const staleByPaths = (model: GraphModel, id: string): Set<number> => {
  const facts = new Map(model.facts.map((f) => [f.id, f]))
  const isMerge = (f: string) => parentsOf(facts.get(f)).length >= 2
  const confirmedAt = (f: string) => (model.confirmations ?? []).filter((c) => c.fact === f).map((c) => c.createdAt)
  const stamps = (f: string) => [
    ...model.supersedes.filter((s) => s.loser === f).map((s) => s.createdAt ?? -Infinity),
    ...(model.retractions ?? []).filter((r) => r.fact === f).map((r) => r.createdAt)
  ]
  const out = new Set<number>()
  for (const path of pathsUp(model, id)) {
    if (path.length < 2) continue
    const top = path[path.length - 1]!
    // path[0] is the fact, path[j] the fact j steps up: what lies below path[j] is path[0..j-1].
    const blocks = (t: number, j: number, c: number) =>
      c > t && path.slice(0, j).every((y) => !isMerge(y) || facts.get(y)!.createdAt > c)
    for (const t of stamps(top)) {
      const blocked = path.slice(0, -1).some((x, j) => confirmedAt(x).some((c) => blocks(t, j, c)))
      if (!blocked) out.add(t)
    }
  }
  return out
}

describe("facts on several parents: staleness (domain/model/status.ts)", () => {
  it.prop(
    "a fact's stale reasons are exactly the stamps some path up lets through",
    [memory],
    ([model]) => {
      for (const f of model.facts) {
        expect(new Set(staleReasons(model, f.id)), f.id).toEqual(staleByPaths(model, f.id))
      }
    },
    { fastCheck: { numRuns: propertyRuns(300) } }
  )

  it.prop(
    "without confirmations one stored stamp answers every as_of, and it is the earliest its parents pass on",
    [memory.map((m) => ({ ...m, confirmations: [] }))],
    ([model]) => {
      const last = 2 * model.facts.length + 2
      for (const f of model.facts) {
        const since = staleSince(model, f.id)
        expect(since).toBe(inheritedStaleSince(model, parentsOf(f)))
        for (let t = f.createdAt; t <= last; t += 0.5) {
          expect(isStale(asOf(model, t), f.id)).toBe(since !== null && since <= t)
        }
      }
    },
    { fastCheck: { numRuns: propertyRuns(200) } }
  )

  it.prop(
    "the local rule: an unconfirmed fact's stamp is what its parents pass on, but a merge saved before a confirmation above it may be stale earlier",
    [memory],
    ([model]) => {
      const confirmedAt = (f: string) => (model.confirmations ?? []).filter((c) => c.fact === f).map((c) => c.createdAt)
      for (const f of model.facts) {
        if (confirmedAt(f.id).length > 0) continue
        const own = staleSince(model, f.id) ?? Infinity
        const inherited = inheritedStaleSince(model, parentsOf(f)) ?? Infinity
        // Such a confirmation may have lifted the parents' stamps without vouching for the merge.
        const unvouched = parentsOf(f).length >= 2 &&
          ancestors(model, f.id).some((a) => confirmedAt(a).some((c) => c >= f.createdAt))
        if (unvouched) expect(own, f.id).toBeLessThanOrEqual(inherited)
        else expect(own, f.id).toBe(inherited)
      }
    },
    { fastCheck: { numRuns: propertyRuns(300) } }
  )

  it.prop(
    "ancestors and impact see each fact once, at its fewest steps, nearest first, however many paths lead to it",
    [memory],
    ([model]) => {
      const created = new Map(model.facts.map((f) => [f.id, f.createdAt]))
      for (const f of model.facts) {
        // From the enumerated paths: each fact above f at the fewest steps any path takes.
        const steps = new Map<string, number>()
        for (const path of pathsUp(model, f.id)) {
          path.forEach((a, k) => k > 0 && steps.set(a, Math.min(steps.get(a) ?? Infinity, k)))
        }
        expect(ancestors(model, f.id)).toEqual(
          [...steps.keys()].sort((x, y) => steps.get(x)! - steps.get(y)! || created.get(x)! - created.get(y)!)
        )
        // Down: every fact with a path up to f, once, at the fewest steps of those paths.
        const expected = model.facts.flatMap((d) => {
          const k = Math.min(
            ...pathsUp(model, d.id).flatMap((p) => (p.indexOf(f.id) > 0 ? [p.indexOf(f.id)] : []))
          )
          return Number.isFinite(k) ? [{ id: d.id, distance: k }] : []
        })
        expect(impact(model, f.id)).toEqual(
          expected.sort((x, y) => x.distance - y.distance || created.get(x.id)! - created.get(y.id)!)
        )
      }
    },
    { fastCheck: { numRuns: propertyRuns(200) } }
  )
})

describe("facts on several parents: a worked example", () => {
  // Postgres and Redis decided apart; the session store builds on both.
  const base: GraphModel = {
    facts: [
      { id: "db", content: "Use Postgres 16", parentId: null, createdAt: 1 },
      { id: "cache", content: "Use Redis for caching", parentId: null, createdAt: 2 },
      {
        id: "sessions",
        content: "Sessions in Redis, users in Postgres",
        parentId: "db",
        alsoBuildsOn: ["cache"],
        createdAt: 3
      },
      { id: "pool", content: "Pool size 20", parentId: "db", createdAt: 4, kind: "choice" },
      { id: "ttl", content: "Session TTL 30 min", parentId: "sessions", createdAt: 5 },
      { id: "memcached", content: "Use Memcached for caching", parentId: null, createdAt: 6 }
    ],
    supersedes: []
  }

  it("overturning either parent makes the merge and what builds on it stale; a confirmation lifts only what came before it", () => {
    const overturned: GraphModel = { ...base, supersedes: [{ winner: "memcached", loser: "cache", createdAt: 7 }] }
    expect(isStale(overturned, "sessions")).toBe(true)
    expect(isStale(overturned, "ttl")).toBe(true)
    expect(isStale(overturned, "pool")).toBe(false)
    const confirmed: GraphModel = { ...overturned, confirmations: [{ fact: "sessions", createdAt: 8 }] }
    expect(isStale(confirmed, "sessions")).toBe(false)
    expect(isStale(confirmed, "ttl")).toBe(false)
    // The other parent retracted after the confirmation: stale again, through it.
    const later: GraphModel = { ...confirmed, retractions: [{ fact: "db", createdAt: 9 }] }
    expect(staleSince(later, "ttl")).toBe(9)
  })

  it("the merge is a sibling under each parent: it forks with a choice sharing its terms under either", () => {
    const [underDb, underCache] = saveOutcomes(base, ["db", "cache"], "Sessions in Postgres", "choice")
    // The pool size shares no term with it: compared, and let pass (issue 41's fork rule).
    expect(underDb).toMatchObject({
      parent: "db",
      forkSiblings: ["sessions"],
      siblingsTotal: 1,
      compared: ["pool"],
      comparedTotal: 1
    })
    expect(underCache).toMatchObject({ parent: "cache", forkSiblings: ["sessions"], siblingsTotal: 1 })
    const withMerge: GraphModel = {
      ...base,
      facts: [...base.facts, {
        id: "s2",
        content: "Sessions in Postgres",
        parentId: "cache",
        createdAt: 7,
        kind: "choice"
      }]
    }
    expect(openConflicts(withMerge).find((c) => c.parent === "cache")?.children).toEqual(["s2", "sessions"])
    expect(compatibleViolation(withMerge, "s2", "sessions")).toBeUndefined()
    expect(compatibleViolation(withMerge, "s2", "pool")).toBe("not_siblings")
  })

  it("threads and clusters follow the first parent only (a decision still joins clusters); a revision keeps every parent unless given", () => {
    expect(thread(base, "db")).toEqual(new Set(["db", "sessions", "pool", "ttl"]))
    expect(thread(base, "cache")).toEqual(new Set(["cache"]))
    expect(clusters(base)).toEqual([["db", "sessions", "pool", "ttl"], ["cache"], ["memcached"]])
    const decided: GraphModel = { ...base, supersedes: [{ winner: "memcached", loser: "cache", createdAt: 7 }] }
    expect(thread(decided, "cache")).toEqual(new Set(["cache"]))
    expect(clusters(decided)).toEqual([["db", "sessions", "pool", "ttl"], ["cache", "memcached"]])
    expect(revisionParents(base, "sessions", null)).toEqual(["db", "cache"])
    expect(revisionViolation(base, "sessions", ["cache", "ttl"])).toBe("parent_builds_on_revised")
    expect(revisionViolation(base, "sessions", ["cache", "db"])).toBeUndefined()
  })
})

describe("facts on several parents: a confirmation does not vouch through a merge saved before it", () => {
  // a -> b; c a root; m builds on b and c, n on m; a2 overturns a.
  const base: GraphModel = {
    facts: [
      { id: "a", content: "Use A", parentId: null, createdAt: 1 },
      { id: "b", content: "Use B", parentId: "a", createdAt: 2 },
      { id: "c", content: "Use C", parentId: null, createdAt: 3 },
      { id: "m", content: "B with C", parentId: "b", alsoBuildsOn: ["c"], createdAt: 4 },
      { id: "n", content: "Tune M", parentId: "m", createdAt: 5 },
      { id: "a2", content: "Use A2", parentId: null, createdAt: 6 }
    ],
    supersedes: [{ winner: "a2", loser: "a", createdAt: 7 }],
    confirmations: [{ fact: "b", createdAt: 8 }]
  }

  it("b confirmed after m was saved: b current, m and what builds on it still stale through a", () => {
    expect(isStale(base, "b")).toBe(false)
    expect(staleReasons(base, "m")).toEqual([7])
    expect(staleReasons(base, "n")).toEqual([7])
    // Stale earlier than its parents pass on: the local rule's exception.
    expect(staleSince(base, "m")).toBe(7)
    expect(inheritedStaleSince(base, ["b", "c"])).toBeNull()
  })

  it("a merge saved after the confirmation takes its parents' state; confirming the older merge covers it and what builds on it", () => {
    const later: GraphModel = {
      ...base,
      facts: [...base.facts, { id: "m2", content: "B with C again", parentId: "b", alsoBuildsOn: ["c"], createdAt: 9 }]
    }
    expect(isStale(later, "m2")).toBe(false)
    expect(isStale(later, "m")).toBe(true)
    const confirmed: GraphModel = { ...later, confirmations: [...base.confirmations!, { fact: "m", createdAt: 10 }] }
    expect(isStale(confirmed, "m")).toBe(false)
    expect(isStale(confirmed, "n")).toBe(false)
    expect(isStale(confirmed, "m2")).toBe(false)
  })

  it("of two confirmations of a fact, the earlier still vouches for a merge saved between them", () => {
    const twice: GraphModel = {
      facts: [
        { id: "a", content: "Use A", parentId: null, createdAt: 1 },
        { id: "f", content: "Use F", parentId: "a", createdAt: 2 },
        { id: "g", content: "Use G", parentId: null, createdAt: 3 },
        { id: "y", content: "F with G", parentId: "f", alsoBuildsOn: ["g"], createdAt: 6 }
      ],
      supersedes: [{ winner: "g", loser: "a", createdAt: 4 }],
      retractions: [{ fact: "a", createdAt: 7 }],
      confirmations: [{ fact: "f", createdAt: 5 }, { fact: "f", createdAt: 8 }]
    }
    expect(isStale(twice, "f")).toBe(false)
    // The confirmation at 8 came after y was saved, so y is stale through the retraction at 7; the one at 5 still covers 4.
    expect(staleReasons(twice, "y")).toEqual([7])
  })
})

describe("facts on several parents: threads and clusters", () => {
  /** The root a fact's first parents lead up to: two facts share a thread iff they share it. */
  const firstRoot = (model: GraphModel, id: string): string => {
    const parent = new Map(model.facts.map((f) => [f.id, f.parentId]))
    let at = id
    while (parent.get(at) != null) at = parent.get(at)!
    return at
  }

  it.prop(
    "a thread is the facts whose first parents lead to the same root; without decisions the clusters are the threads",
    [memory],
    ([model]) => {
      for (const f of model.facts) {
        expect(thread(model, f.id), f.id).toEqual(
          new Set(model.facts.filter((g) => firstRoot(model, g.id) === firstRoot(model, f.id)).map((g) => g.id))
        )
      }
      const undecided: GraphModel = { ...model, supersedes: [] }
      const threads = new Set(model.facts.map((f) => [...thread(undecided, f.id)].sort().join(" ")))
      expect(new Set(clusters(undecided).map((c) => [...c].sort().join(" ")))).toEqual(threads)
    },
    { fastCheck: { numRuns: propertyRuns(200) } }
  )
})

describe("facts on several parents: edge cases the review found", () => {
  const dag: GraphModel = {
    facts: [
      { id: "a", content: "Use A", parentId: null, createdAt: 1 },
      { id: "b", content: "Use B", parentId: "a", createdAt: 2 },
      { id: "f", content: "Use F", parentId: "a", alsoBuildsOn: ["b", "a"], createdAt: 3 },
      { id: "g", content: "Use G", parentId: "a", createdAt: 4 }
    ],
    supersedes: []
  }

  it("context lists each fact after all it builds on; a parent named twice counts once", () => {
    expect(context(dag, "f")).toEqual(["a", "b", "f"])
    expect(parentsOf(dag.facts[2])).toEqual(["a", "b"])
    expect(openConflicts(dag).find((c) => c.parent === "a")?.children).toEqual(["g", "f", "b"])
  })

  it("a confirmation stamped with a decision does not cover it (a stamp counts from the confirmation's own on)", () => {
    const tied: GraphModel = {
      ...dag,
      retractions: [{ fact: "b", createdAt: 5 }],
      confirmations: [{ fact: "f", createdAt: 5 }]
    }
    expect(isStale(tied, "f")).toBe(true)
    expect(isStale({ ...tied, confirmations: [{ fact: "f", createdAt: 6 }] }, "f")).toBe(false)
  })
})
