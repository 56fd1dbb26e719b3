import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { type ChildStamp, marksFork } from "../../src/domain/forkMarks.js"

/**
 * The mark rule (domain/forkMarks.ts) as the saves apply it, pair by pair: some child's save met a
 * sibling stamped before it, not retracted by then and not the fact it revised, that it forks with
 * (two kind-less texts that differ, or a FORKS edge), and one of the two is of the file. The rule's
 * single pass must answer the same.
 */
const byPairs = (kids: ReadonlyArray<ChildStamp>, fromFile: ReadonlySet<string>): boolean =>
  kids.some((c) =>
    kids.some((s) =>
      s.createdAt < c.createdAt && (s.retractedAt === null || s.retractedAt > c.createdAt) && s.id !== c.revises &&
      (fromFile.has(c.id) || fromFile.has(s.id)) && s.norm !== c.norm &&
      ((!s.kinded && !c.kinded) || c.pairedWith.includes(s.id) || s.pairedWith.includes(c.id))
    )
  )

const children = fc.array(
  fc.record({
    norm: fc.constantFrom("a", "b", "c"),
    kinded: fc.boolean(),
    retracted: fc.option(fc.nat(40), { nil: null }),
    revises: fc.option(fc.nat(), { nil: null }),
    file: fc.boolean(),
    pairs: fc.array(fc.nat(), { maxLength: 2 })
  }),
  { maxLength: 8 }
).map((rows) => {
  const ids = rows.map((_, i) => `c${i}`)
  // Stamps 2, 4, ...: a retraction (odd or even) never shares one with a fact.
  const kids: Array<ChildStamp> = rows.map((r, i) => ({
    id: ids[i]!,
    norm: r.norm,
    kinded: r.kinded,
    createdAt: 2 * (i + 1),
    retractedAt: r.retracted === null ? null : 2 * (i + 1) + 1 + r.retracted,
    revises: r.revises === null || rows.length === 0 ? null : ids[r.revises % rows.length]!,
    // An edge only where the rule keeps one: a pair not both kind-less, the texts differing.
    pairedWith: r.pairs.map((p) => p % rows.length).filter((p) =>
      p !== i && (r.kinded || rows[p]!.kinded) && rows[p]!.norm !== r.norm
    ).map((p) => ids[p]!)
  }))
  // FORKS edges go either way: each one seen from both ends.
  const both = kids.map((k) => ({
    ...k,
    pairedWith: [...new Set([...k.pairedWith, ...kids.filter((o) => o.pairedWith.includes(k.id)).map((o) => o.id)])]
  }))
  return { kids: both, fromFile: new Set(ids.filter((_, i) => rows[i]!.file)) }
})

describe("which parents a fork marks", () => {
  it.prop("the single pass answers as the saves' pairs do", [children], ([{ fromFile, kids }]) => {
    expect(marksFork(kids, fromFile)).toBe(byPairs(kids, fromFile))
    // Order of the rows read does not matter.
    expect(marksFork([...kids].reverse(), fromFile)).toBe(byPairs(kids, fromFile))
  }, { fastCheck: { numRuns: 300 } })

  it("a revision of its only differing sibling marks nothing; another differing sibling still marks", () => {
    const kid = (id: string, norm: string, createdAt: number, revises: string | null = null): ChildStamp => ({
      id,
      norm,
      kinded: false,
      createdAt,
      retractedAt: null,
      revises,
      pairedWith: []
    })
    // Only the revision is of the file: the graph's own pair (a, c) is not its to mark.
    const file = new Set(["b"])
    expect(marksFork([kid("a", "x", 1), kid("b", "y", 3, "a")], file)).toBe(false)
    expect(marksFork([kid("a", "x", 1), kid("c", "z", 2), kid("b", "y", 3, "a")], file)).toBe(true)
  })
})
