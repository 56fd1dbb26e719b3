/**
 * Agent names compare without case: a name is shown as the spelling first recorded of it, and a
 * name never recorded as itself (layers/factStore/agentNames.ts keeps this on Agent nodes).
 */
export const nameKey = (name: string): string => name.toLowerCase()

/** The first spellings after recording `names` in order (a name already known keeps its spelling). */
export const recordNames = (first: ReadonlyMap<string, string>, names: ReadonlyArray<string>): Map<string, string> => {
  const out = new Map(first)
  for (const n of names) if (!out.has(nameKey(n))) out.set(nameKey(n), n)
  return out
}

/** How `name` is shown given the first spellings recorded. */
export const shownName = (first: ReadonlyMap<string, string>, name: string): string => first.get(nameKey(name)) ?? name
