import { FastCheck as fc } from "effect"
import type { GraphModel, ModelFact } from "../../src/domain/model/index.js"

/**
 * A generated memory for the pure model's property tests: up to `maxFacts` facts stamped 1..n in
 * order, each on up to `maxParents` earlier facts (0: a root; a parent may be named twice), and
 * decisions, retractions and confirmations stamped among and after them (a fact before anything
 * about it). Half stamps for decisions and retractions, quarter stamps below them for
 * confirmations: nothing ties with a fact or with each other.
 */
export const memoryArb = (maxFacts: number, maxParents: number): fc.Arbitrary<GraphModel> =>
  fc.integer({ min: 1, max: maxFacts }).chain((n) =>
    fc.record({
      parents: fc.array(fc.array(fc.nat(), { maxLength: maxParents }), { minLength: n, maxLength: n }),
      decisions: fc.array(fc.record({ loser: fc.nat(), winner: fc.nat(), at: fc.nat({ max: n }) }), { maxLength: 6 }),
      retractions: fc.array(fc.record({ fact: fc.nat(), at: fc.nat({ max: n }) }), { maxLength: 4 }),
      confirmations: fc.array(fc.record({ fact: fc.nat(), at: fc.nat({ max: 2 * n }) }), { maxLength: 4 })
    }).map(({ confirmations, decisions, parents, retractions }): GraphModel => {
      const facts = parents.map((ps, i): ModelFact => {
        const ids = i === 0 ? [] : ps.map((p) => `f${p % i}`)
        return {
          id: `f${i}`,
          content: `fact ${i % 3}`,
          parentId: ids[0] ?? null,
          ...(ids.length > 1 ? { alsoBuildsOn: ids.slice(1) } : {}),
          createdAt: i + 1
        }
      })
      const later = (i: number, at: number) => i + 1 + at + 0.5
      return {
        facts,
        supersedes: decisions.map((d) => ({
          loser: `f${d.loser % n}`,
          winner: `f${d.winner % n}`,
          createdAt: later(d.loser % n, d.at)
        })),
        retractions: retractions.map((r) => ({ fact: `f${r.fact % n}`, createdAt: later(r.fact % n, r.at) })),
        confirmations: confirmations.map((c) => ({
          fact: `f${c.fact % n}`,
          createdAt: later(c.fact % n, c.at) - 0.25
        }))
      }
    })
  )
