/**
 * The write rules a statement shares are written once: a Fact node's properties in
 * layers/factStore/factNode.ts, a decision's, compatible record's and retraction's in
 * layers/factStore/recordProps.ts, a parent's ForkMark in layers/factStore/forkMark.ts. A statement
 * that spells one of those property maps out again (a CREATE's map or a MERGE's ON CREATE SET), or
 * makes a mark of its own, is a second copy, which a fix to the first would miss.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const src = join(import.meta.dirname, "../../src")
/** Every source file but the two homes of those rules. */
const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) =>
  f.endsWith(".ts") && !/factStore\/(factNode|recordProps|forkMark)\.ts$/.test(f)
)

const spelledOut = (pattern: RegExp) => files.filter((f) => pattern.test(readFileSync(join(src, f), "utf8"))).sort()

describe("write rules written once", () => {
  it("no statement lists a Fact node's properties but factNode.ts", () => {
    expect(spelledOut(/:Fact \{id: [^}]*\bcontent: /)).toEqual([])
  })

  it("no statement lists a decision's or compatible record's properties but recordProps.ts", () => {
    expect(spelledOut(/resolved_by: (\$[a-zA-Z]|[a-z]\.by\b)|\.resolved_by = \$/)).toEqual([])
  })

  it("no statement lists a Retraction's properties but recordProps.ts", () => {
    expect(spelledOut(/:Retraction \{id: [^}]*retracted_by: /)).toEqual([])
  })

  it("no statement makes a ForkMark but forkMark.ts", () => {
    expect(spelledOut(/(MERGE|CREATE) \(:ForkMark\)/)).toEqual([])
  })
})
