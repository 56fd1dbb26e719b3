import type { RelayClient } from "./mcpClient.js"
import { outputOf } from "./toolOutputs.js"

/**
 * Saves a root and two children that disagree under it (one open conflict), through the real
 * client; throws, naming the error, if a save fails. For tests that need a fork in the graph before
 * they break something under it.
 */
export const saveFork = async (
  relay: RelayClient,
  contents: readonly [root: string, a: string, b: string],
  by: { written_by: string; session_id: string }
): Promise<{ root: string; a: string; b: string }> => {
  const save = async (content: string, parent?: string) =>
    outputOf(
      await relay.call("relay_save_fact", {
        content,
        ...by,
        ...(parent === undefined ? {} : { parent_fact_id: parent })
      })
    ).fact.id
  const root = await save(contents[0])
  return { root, a: await save(contents[1], root), b: await save(contents[2], root) }
}

/** The arguments of relay_resolve_conflict's supersede outcome, in the order a test reads them. */
export const resolveArgs = (winner: string, loser: string, reason: string, resolvedBy: string) => ({
  winner_fact_id: winner,
  loser_fact_id: loser,
  reason,
  resolved_by: resolvedBy
})
