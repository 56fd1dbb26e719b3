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

/**
 * `entryParents` for facts on several parents (import): every nearest ancestor outside the batch,
 * through each parent, the first parent's line first. A fact new in the batch is stale from the
 * earliest of them.
 */
export const entrySets = (
  batch: ReadonlyArray<{ readonly id: string; readonly parents: ReadonlyArray<string> }>
): Array<Array<string>> => {
  const inBatch = new Map<string, Array<string>>()
  return batch.map((f) => {
    const out: Array<string> = []
    for (const p of f.parents) {
      for (const e of inBatch.get(p) ?? [p]) if (!out.includes(e)) out.push(e)
    }
    inBatch.set(f.id, out)
    return out
  })
}

/**
 * Each fact's nearest merge on its first-parent line and the merges on its deepest line
 * (domain/model/save.ts mergeDepth), as a save stores them (`merge_of`, `merge_depth`): a merge is its
 * own. `outside` gives them for parents already stored.
 */
export const mergePlaces = (
  batch: ReadonlyArray<{ readonly id: string; readonly parents: ReadonlyArray<string> }>,
  outside: ReadonlyMap<string, { readonly mergeOf: string | null; readonly depth: number }>
): Array<{ readonly mergeOf: string | null; readonly depth: number }> => {
  const placed = new Map(outside)
  return batch.map((f) => {
    const ups = f.parents.map((p) => placed.get(p) ?? { mergeOf: null, depth: 0 })
    const place = f.parents.length > 1
      ? { mergeOf: f.id, depth: Math.max(...ups.map((u) => u.depth)) + 1 }
      : ups[0] ?? { mergeOf: null, depth: 0 }
    placed.set(f.id, place)
    return place
  })
}
