import { factIdPrefixMin } from "../domain/ids.js"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const commonPrefix = (a: string, b: string): number => {
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return i
}

/**
 * The short form of every fact id in one reply: its first `factIdPrefixMin` characters, or more
 * where two ids of the reply share them (so no short id in a reply stands for two facts). Every
 * tool takes a unique prefix back as input (policies/factIdPrefixes.ts); a prefix that is unique
 * in a reply but not in the whole memory is refused there as ambiguous, never guessed.
 */
export class ShortIds {
  private constructor(private readonly short: ReadonlyMap<string, string>) {}

  /** Every UUID-shaped string anywhere in `value`. */
  static in(value: unknown): ShortIds {
    const found = new Set<string>()
    const walk = (v: unknown): void => {
      if (typeof v === "string") {
        if (v.length === 36 && uuid.test(v)) found.add(v)
      } else if (Array.isArray(v)) v.forEach(walk)
      else if (typeof v === "object" && v !== null) Object.values(v).forEach(walk)
    }
    walk(value)
    const sorted = [...found].sort()
    const short = new Map<string, string>()
    sorted.forEach((id, i) => {
      const shared = Math.max(
        i > 0 ? commonPrefix(id, sorted[i - 1]!) : 0,
        i < sorted.length - 1 ? commonPrefix(id, sorted[i + 1]!) : 0
      )
      let length = Math.max(factIdPrefixMin, shared + 1)
      // A prefix never ends on a dash.
      if (id[length - 1] === "-") length++
      short.set(id, id.slice(0, length))
    })
    return new ShortIds(short)
  }

  of(id: string): string {
    return this.short.get(id) ?? id
  }
}
