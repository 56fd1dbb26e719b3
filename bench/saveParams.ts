import { randomUUID } from "node:crypto"
import { forkTermsOf } from "../src/domain/model/conflicts.js"
import { factParams } from "../src/layers/factStore/factNode.js"
import { termCountsParams } from "../src/layers/factStore/termCounts.js"

/** A plain save's statement parameters (saveFact.ts `saveQueries.root` / `.child`), as relay_save_fact sends them. */
export const saveParams = (content: string, parentId: string | null, sessionId: string): Record<string, unknown> => {
  const fact = factParams({ id: randomUUID(), content, writtenBy: "bench", sessionId, kind: null, contradicts: null })
  return {
    ...fact,
    parentId,
    parents: parentId === null ? [] : [parentId],
    alsoSorted: [],
    forkTerms: forkTermsOf(content),
    comparedShown: 5,
    supersedes: null,
    reason: null,
    shown: 5,
    now: Date.now(),
    bytes: content.length,
    maxFacts: 10_000_000,
    maxBytes: 4 * 2 ** 30,
    ...termCountsParams(fact.terms),
    embedding: null
  }
}
