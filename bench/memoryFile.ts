import { headerLine } from "../src/domain/memoryRecord.js"
import { toIso } from "../src/domain/time.js"

/**
 * An export file (src/domain/memoryRecord.ts) of `threads` threads of `perThread` facts each, as a
 * team's memory looks: each thread a root and a chain below it; every 10th fact a choice with a
 * rival sibling (a fork), every other such fork decided, every 25th fact of an odd thread a merge onto
 * the fact of the same depth in the thread before, the winner of every fourth fork retracted. Ids are counters in UUID form and every
 * record has a stamp of its own, so the lines are in write order. For the import tests and the bench.
 * With `plainForks`, every other fork is two kind-less facts (a pair the fork marks count by text)
 * instead of two choices (a pair kept as a FORKS edge: layers/factStore/forkRule.ts).
 */
export interface MemoryFileShape {
  readonly threads: number
  readonly perThread: number
  /** The first record's stamp (default 2026-01-01T00:00:00.000Z). */
  readonly start?: number
  /** Every other fork kind-less (default: every fork two choices). */
  readonly plainForks?: boolean
}

export const counterId = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

export interface MemoryFile {
  readonly lines: ReadonlyArray<string>
  readonly facts: number
  readonly forks: number
  readonly decisions: number
  readonly merges: number
  readonly retractions: number
  /** The parents with an open conflict at the end (two differing children, neither superseded nor retracted). */
  readonly openForks: ReadonlyArray<string>
}

export const memoryFile = (shape: MemoryFileShape): MemoryFile => {
  let at = shape.start ?? Date.parse("2026-01-01T00:00:00.000Z")
  let next = 1
  const lines: Array<string> = [headerLine]
  const counts = { facts: 0, forks: 0, decisions: 0, merges: 0, retractions: 0 }
  const children = new Map<string, Array<{ id: string; content: string }>>()
  const out = new Set<string>()
  const stamp = () => toIso(at++)
  const fact = (parent: string | null, content: string, also?: string, kind?: "choice") => {
    const id = counterId(next++)
    counts.facts++
    for (const p of parent === null ? [] : [parent, ...(also === undefined ? [] : [also])]) {
      children.set(p, [...(children.get(p) ?? []), { id, content }])
    }
    lines.push(JSON.stringify({
      kind: "fact",
      id,
      created_at: stamp(),
      written_by: `writer-${counts.facts % 5}`,
      session_id: "import-bench",
      parent_id: parent,
      ...(also === undefined ? {} : { also_on: [also] }),
      content,
      ...(kind === undefined ? {} : { fact_kind: kind })
    }))
    return id
  }
  let previous: Array<string> = []
  for (let t = 0; t < shape.threads; t++) {
    const chain: Array<string> = []
    let parent: string | null = null
    for (let d = 0; d < shape.perThread && counts.facts < shape.threads * shape.perThread; d++) {
      const n = counts.facts
      // Odd threads merge onto the even thread before them: no line holds more than two merges.
      const merge = parent !== null && t % 2 === 1 && n % 25 === 24 && previous[d] !== undefined
        ? previous[d]
        : undefined
      if (merge !== undefined) counts.merges++
      const forked = parent !== null && n % 10 === 9
      const kind = forked && !(shape.plainForks === true && counts.forks % 2 === 1) ? "choice" : undefined
      const id: string = fact(parent, `thread ${t} step ${d}: the service answers in ${d} ms`, merge, kind)
      if (forked) {
        const rival = fact(parent, `thread ${t} step ${d}: use another store instead`, undefined, kind)
        counts.forks++
        if (Math.floor(n / 10) % 2 === 0) {
          counts.decisions++
          lines.push(JSON.stringify({
            kind: "decision",
            created_at: stamp(),
            winner_id: id,
            loser_id: rival,
            resolved_by: "lead",
            reason: "measured"
          }))
          out.add(rival)
        }
      }
      if (n % 40 === 29 && parent !== null) {
        counts.retractions++
        lines.push(JSON.stringify({
          kind: "retraction",
          id: counterId(1_000_000_000 + n),
          created_at: stamp(),
          fact_id: id,
          retracted_by: "lead",
          reason: "wrong"
        }))
        out.add(id)
      }
      chain.push(id)
      parent = id
    }
    previous = chain
  }
  // Open: two children that say different things, neither superseded nor retracted (no detail here,
  // and two siblings of which one is a choice share the words "thread" and "step").
  const openForks = [...children].filter(([, kids]) =>
    new Set(kids.filter((k) => !out.has(k.id)).map((k) => k.content)).size > 1
  ).map(([p]) => p)
  return { lines, ...counts, openForks }
}

export const memoryText = (file: MemoryFile) => `${file.lines.join("\n")}\n`
