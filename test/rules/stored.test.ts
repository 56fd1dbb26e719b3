import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { entryParents } from "../../src/domain/batchEntry.js"
import { asOf, type GraphModel, inheritedStaleSince, isStale, staleSince } from "../../src/domain/model/index.js"
import { invalidatedAt } from "../../src/domain/model/stored.js"
import { factTable, stampsOf } from "../../src/layers/database/schemaVersion.js"
import { factMap } from "../../src/layers/factStore/projection.js"
import { neverStale, staleBy } from "../../src/layers/factStore/staleness.js"
import { memoryArb } from "../support/memoryArb.js"
import { propertyRuns } from "../support/propertyRuns.js"

/** One parent a fact at most (the stamps a save keeps), up to 24 facts. */
const memory = memoryArb(24, 1)

const withoutConfirmations = (model: GraphModel): GraphModel => ({ ...model, confirmations: [] })

describe("stored staleness (domain/model/stored.ts)", () => {
  it.prop(
    "without confirmations, one stamp answers every as_of: stale at t iff the stamp is at or before t",
    [memory.map(withoutConfirmations)],
    ([model]) => {
      const last = 2 * model.facts.length + 2
      for (const f of model.facts) {
        const since = staleSince(model, f.id)
        for (let t = f.createdAt; t <= last; t += 0.5) {
          expect(isStale(asOf(model, t), f.id)).toBe(since !== null && since <= t)
        }
      }
    },
    { fastCheck: { numRuns: propertyRuns(300) } }
  )

  it.prop(
    "the local rule every write keeps: an unconfirmed child's stamp is what its parent passes on, a root's is never; a confirmed one's is no earlier",
    [memory],
    ([model]) => {
      const confirmed = new Set((model.confirmations ?? []).map((c) => c.fact))
      for (const f of model.facts) {
        const inherited = f.parentId === null ? null : inheritedStaleSince(model, [f.parentId])
        const own = staleSince(model, f.id)
        if (!confirmed.has(f.id)) expect(own).toBe(inherited)
        else if (own !== null) expect(inherited === null ? false : own >= inherited).toBe(true)
      }
    },
    { fastCheck: { numRuns: propertyRuns(300) } }
  )

  it.prop(
    "a batch's facts inherit from their nearest ancestor outside the batch",
    [memory, fc.nat(), fc.nat()],
    ([model, a, b]) => {
      const n = model.facts.length
      const [from, to] = [Math.min(a % n, b % n), Math.max(a % n, b % n) + 1]
      const batch = model.facts.slice(from, to)
      const inside = new Set(batch.map((f) => f.id))
      const parentOf = new Map(model.facts.map((f) => [f.id, f.parentId]))
      const nearestOutside = (id: string) => {
        let p = parentOf.get(id) ?? null
        while (p !== null && inside.has(p)) p = parentOf.get(p) ?? null
        return p
      }
      expect(entryParents(batch)).toEqual(batch.map((f) => nearestOutside(f.id)))
    },
    { fastCheck: { numRuns: propertyRuns(300) } }
  )

  it.prop(
    "the migration computes every stamp the model gives, whatever order its node ids come in",
    [memory.map(withoutConfirmations), fc.array(fc.nat(), { minLength: 30, maxLength: 30 })],
    ([model, shuffle]) => {
      const n = model.facts.length
      // Node ids in any order (a merge, a stamp by hand), with gaps where other nodes sit.
      const order = model.facts.map((f, i) => ({ f, key: shuffle[i % shuffle.length]! * 64 + i }))
        .sort((a, b) => a.key - b.key)
      const node = new Map(order.map(({ f }, k) => [f.id, 2 * k + 1]))
      const table = factTable(2 * n + 1)
      const invalidated = invalidatedAt(model)
      for (const f of model.facts) {
        const at = node.get(f.id)!
        table.isFact[at] = 1
        table.parent[at] = f.parentId === null ? -1 : node.get(f.parentId)!
        table.invalidated[at] = invalidated.get(f.id) ?? neverStale
      }
      const stamps = stampsOf(table)
      for (const f of model.facts) {
        expect(stamps[node.get(f.id)!]).toBe(staleSince(model, f.id) ?? neverStale)
      }
    },
    { fastCheck: { numRuns: propertyRuns(300) } }
  )
})

describe("confirmations (domain/model/status.ts, staleReasons)", () => {
  it.prop(
    "a confirmation covers what came before it, for the fact and what builds on it through it; a later decision counts again",
    [memory],
    ([model]) => {
      const last = 3 * model.facts.length + 3
      for (const f of model.facts) {
        const confirmed: GraphModel = {
          ...model,
          confirmations: [...(model.confirmations ?? []), { fact: f.id, createdAt: last }]
        }
        expect(isStale(confirmed, f.id), `${f.id} confirmed after everything`).toBe(false)
        // Below f, only a decision or retraction on f or between f and the fact still counts.
        for (const d of model.facts) {
          const chain: Array<string> = []
          let up = model.facts.find((x) => x.id === d.id)!.parentId
          while (up !== null && up !== f.id) {
            chain.push(up)
            up = model.facts.find((x) => x.id === up)!.parentId
          }
          if (up !== f.id) continue
          const inside = new Set([f.id, ...chain])
          const insideOnly: GraphModel = {
            ...confirmed,
            supersedes: confirmed.supersedes.filter((s) => inside.has(s.loser)),
            retractions: (confirmed.retractions ?? []).filter((r) => inside.has(r.fact))
          }
          expect(isStale(confirmed, d.id), `${d.id} under ${f.id}`).toBe(isStale(insideOnly, d.id))
        }
        // A decision on f's parent after the confirmation makes f stale again.
        if (f.parentId !== null) {
          const after: GraphModel = {
            ...confirmed,
            retractions: [...(confirmed.retractions ?? []), { fact: f.parentId, createdAt: last + 1 }]
          }
          expect(isStale(after, f.id)).toBe(true)
          expect(staleSince(after, f.id)).toBe(last + 1)
        }
      }
    },
    { fastCheck: { numRuns: propertyRuns(300) } }
  )
})

describe("as_of staleness in Cypher (layers/factStore/staleness.ts)", () => {
  it("one call site builds one query text, so FalkorDB's plan cache keeps serving it", () => {
    expect(factMap("f", true)).toBe(factMap("f", true))
    expect(staleBy("d", "$at")).not.toBe(staleBy("d", "($at - 1)"))
  })
})
