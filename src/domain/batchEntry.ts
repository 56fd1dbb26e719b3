/**
 * For a batch of facts written in one statement (the bulk path, import), each fact's nearest
 * ancestor outside the batch, or null when its chain starts inside it. A fact new in the batch has
 * no decision on it yet, so a fact of the batch is stale from when that ancestor is
 * (layers/factStore/staleness.ts): the statement reads it there instead of walking the batch.
 * A parent must come before its child in the batch (both writers check it).
 */
export const entryParents = (
  batch: ReadonlyArray<{ readonly id: string; readonly parentId: string | null }>
): Array<string | null> => {
  const entry = new Map<string, string | null>()
  return batch.map((f) => {
    const inside = f.parentId === null ? undefined : entry.get(f.parentId)
    const found = f.parentId === null
      ? null
      : inside === undefined && !entry.has(f.parentId)
      ? f.parentId
      : inside ?? null
    entry.set(f.id, found)
    return found
  })
}
