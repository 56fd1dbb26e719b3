import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { storedFact } from "../../bench/bulkLoad.js"
import { confirmMessage } from "../../src/domain/rules.js"
import { FactStore } from "../../src/services/FactStore.js"
import { type CypherParams, GraphDatabase } from "../../src/services/GraphDatabase.js"
import { relayTestLayer } from "../support/testLayer.js"
import { type Shape, shapeStatements } from "./chainShapes.js"

/**
 * Issue 40: a confirmation of a fact with 63 decided facts in its 3,430-fact subtree took 821 ms of
 * the writer (the statement walks the subtree once per decided fact), and another graph's save waited
 * up to 829 ms. The shape: a stale fact `top` (its parent superseded), a chain of 63 facts below it
 * each superseded from outside, and 3,366 leaves under the last. Now refused whole, in one walk.
 */
const start = Date.parse("2026-05-01T00:00:00Z")
let at = start
const fact = (content: string) => storedFact(randomUUID(), content, "hostile", "hostile", at++)
const parent = fact("the release train leaves every Tuesday")
const top = fact("hotfixes ride the train too")
const chain = Array.from({ length: 63 }, (_, i) => fact(`hotfix rule ${i}`))
const leaves = Array.from({ length: 3430 - 64 }, (_, i) => fact(`hotfix note ${i}`))
const winners = [parent, ...chain].map((_, i) => fact(`a later rule ${i}`))
const shape: Shape = {
  facts: [parent, top, ...chain, ...leaves, ...winners],
  links: [
    [top.id, parent.id],
    ...chain.map((f, i) => [f.id, (i === 0 ? top : chain[i - 1]!).id] as const),
    ...leaves.map((f) => [f.id, chain[chain.length - 1]!.id] as const)
  ],
  supersedes: [parent, ...chain].map((f, i) => [winners[i]!.id, f.id] as const),
  lastStamp: at + 1
}

layer(relayTestLayer("confirm_bound"))("a confirmation over a large decided subtree", (it) => {
  it.effect("is refused in one walk, nothing written; a fact further down is confirmed", () =>
    Effect.gen(function*() {
      const db = yield* GraphDatabase
      for (const s of shapeStatements(shape)) yield* db.write(s.cypher, s.params as CypherParams)
      const store = yield* FactStore
      const confirmation = (factId: string, callId: string) =>
        ({ factId, callId, reason: "still holds", confirmedBy: "zed" }) as const
      const began = performance.now()
      const refused = yield* Effect.flip(store.confirm(confirmation(top.id, randomUUID())))
      console.log(
        `confirm of the top (3,430 below, 63 decided): refused in ${(performance.now() - began).toFixed(0)} ms`
      )
      expect([refused._tag, refused.message]).toEqual(["InvalidResolution", confirmMessage.too_many])
      const count = yield* db.read(
        "MATCH (c:Confirmation) RETURN count(c) AS n",
        {},
        Schema.Struct({ n: Schema.Number })
      )
      expect(count).toEqual([{ n: 0 }])
      const leaf = yield* store.confirm(confirmation(leaves[0]!.id, randomUUID()))
      expect([leaf.alreadyConfirmed, leaf.fact.status]).toEqual([false, "active"])
    }))
})
