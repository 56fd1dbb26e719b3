import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc, Schema } from "effect"
import type { Fact } from "../../src/domain/fact.js"
import { replyCost, replyFrameBytes } from "../../src/domain/paging.js"
import { renderResult } from "../../src/mcp/render.js"
import { detectConflicts } from "../../src/tools/detectConflicts.js"
import { getBriefing } from "../../src/tools/getBriefing.js"
import { getClusters } from "../../src/tools/getClusters.js"
import { getContext } from "../../src/tools/getContext.js"
import { getCurrentState } from "../../src/tools/getCurrentState.js"
import { getImpact } from "../../src/tools/getImpact.js"
import { getImportantFacts } from "../../src/tools/getImportantFacts.js"
import { resolveConflict } from "../../src/tools/resolveConflict.js"
import { retractFact } from "../../src/tools/retractFact.js"
import { saveFact } from "../../src/tools/saveFact.js"
import { search } from "../../src/tools/search.js"
import type { AnyTool } from "../../src/tools/Tool.js"

/**
 * The byte measure every page is cut on (replyCost) against the reply as it is really sent: the
 * JSON-RPC message with the rendered text block and structuredContent, JSON.stringify'd, in UTF-8
 * bytes. Text is drawn from what the reply escapes or widens most: DEL and C1 controls (1-2 bytes
 * raw, 7 in the text), soft hyphens, tag characters (4 bytes raw, 14 in the text), line separators,
 * lone surrogates, quotes and backslashes. The measure must never be below what the reply spends.
 */
const pads = [
  "\u007f",
  "\u0085",
  "\u009f",
  "\u00ad",
  "\u{E0041}",
  "\u{E007F}",
  "\u2028",
  "\u200b",
  "\ufeff",
  "\u202e",
  "\ud800",
  "\udfff",
  "\"",
  "\\",
  "\n",
  "\u0001",
  "a",
  " ",
  "é",
  "中",
  "😀"
]
/** Runs of one pad (so a text can be mostly DEL, as a hostile one is) mixed with any code points. */
const text = fc.array(
  fc.oneof(
    fc.tuple(fc.constantFrom(...pads), fc.integer({ min: 1, max: 80 })).map(([p, n]) => p.repeat(n)),
    fc.string({ unit: "binary", maxLength: 3 })
  ),
  { maxLength: 12 }
).map((parts) => parts.join(""))

const stamp = fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }).map((n) => new Date(n).toISOString())
const name = fc.constantFrom("claude-desktop", "cursor", "a", "zed.local_1")
const fact: fc.Arbitrary<Fact> = fc.record({
  id: fc.uuid(),
  content: text,
  written_by: name,
  session_id: name,
  created_at: stamp,
  parent_id: fc.option(fc.uuid(), { nil: null }),
  status: fc.constantFrom("active", "superseded", "stale", "retracted")
})
const facts = (max: number) => fc.array(fact, { maxLength: max })
const cursor = fc.option(fc.base64String({ maxLength: 40 }), { nil: null })
const decision = fc.record({ winner: fact, loser: fact, reason: text, resolved_by: name, created_at: stamp })
const withdrawal = fc.record({ fact, reason: text, retracted_by: name, created_at: stamp })
const conflict = fc.record({ parent: fact, children: facts(4), children_total: fc.nat(30) })
const dependent = fc.record({ fact, distance: fc.integer({ min: 1, max: 40 }) })
const lost = fc.record({
  winner_id: fc.uuid(),
  winner_content: text,
  reason: text,
  resolved_by: name,
  created_at: stamp
})
const won = fc.record({ loser_id: fc.uuid(), loser_content: text, reason: text, resolved_by: name, created_at: stamp })

/** A tool's output and the items its store spent the budget on. */
interface Case {
  readonly tool: AnyTool
  readonly output: fc.Arbitrary<{ output: unknown; items: ReadonlyArray<unknown> }>
}

const cases: ReadonlyArray<Case> = [
  {
    tool: getCurrentState,
    output: fc.record({ facts: facts(6), next_cursor: cursor }).map((o) => ({ output: o, items: o.facts }))
  },
  {
    tool: detectConflicts,
    output: fc.record({ conflicts: fc.array(conflict, { maxLength: 4 }), next_cursor: cursor }).map((o) => ({
      output: o,
      items: o.conflicts
    }))
  },
  {
    tool: getBriefing,
    output: fc.record({
      as_of: stamp,
      since: stamp,
      new_facts: facts(4),
      decisions: fc.array(decision, { maxLength: 3 }),
      retractions: fc.array(withdrawal, { maxLength: 3 }),
      open_conflicts: fc.array(conflict, { maxLength: 3 }),
      unchanged_conflicts: fc.nat(50),
      // The tasks section is the task board's (its own budget): empty here.
      tasks: fc.constant({ new_tasks: [], claimed_by_others: [], failures: [], awaiting_approval: [], more: false }),
      next_cursor: cursor
    }).map((o) => ({ output: o, items: [...o.new_facts, ...o.decisions, ...o.retractions, ...o.open_conflicts] }))
  },
  {
    tool: search,
    output: fc.record({
      hits: fc.array(
        fc.record({
          fact,
          score: fc.double({ min: 0, max: 100, noNaN: true }),
          superseded_by: fc.array(lost, { maxLength: 3 }),
          supersedes: fc.array(won, { maxLength: 3 })
        }),
        { maxLength: 4 }
      ),
      next_cursor: cursor
    }).map((o) => ({ output: o, items: o.hits }))
  },
  {
    tool: getImportantFacts,
    output: fc.record({
      facts: fc.array(fc.record({ fact, score: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 5 }),
      // As of when the scores were materialised (issue 42): null for an empty memory.
      as_of: fc.option(stamp, { nil: null }),
      next_cursor: cursor
    }).map((o) => ({ output: o, items: o.facts }))
  },
  {
    tool: getClusters,
    output: fc.record({
      clusters: fc.array(
        fc.record({
          id: fc.integer({ min: 1, max: 1e6 }),
          size: fc.integer({ min: 1, max: 1e6 }),
          label: text,
          thread: fc.uuid(),
          last_activity: stamp,
          open_conflicts: fc.nat(50),
          facts: facts(4)
        }),
        { maxLength: 4 }
      ),
      total_clusters: fc.integer({ min: 0, max: 1e6 }),
      next_cursor: cursor
    }).map((o) => ({ output: o, items: o.clusters }))
  },
  {
    tool: getImpact,
    output: fc.record({ fact_id: fc.uuid(), dependents: fc.array(dependent, { maxLength: 5 }), next_cursor: cursor })
      .map((o) => ({ output: o, items: o.dependents }))
  },
  {
    tool: getContext,
    output: fc.record({
      chain: facts(5),
      superseded_by: fc.array(
        fc.record({
          fact_id: fc.uuid(),
          winner_id: fc.uuid(),
          winner_content: text,
          reason: text,
          resolved_by: name,
          created_at: stamp
        }),
        { maxLength: 5 }
      ),
      next_cursor: cursor
    }).map((o) => ({ output: o, items: [...o.chain, ...o.superseded_by] }))
  },
  {
    tool: saveFact,
    output: fc.record({
      fact,
      fork: fc.option(fc.record({ parent_id: fc.uuid(), siblings: facts(4), siblings_total: fc.nat(100) }), {
        nil: null
      }),
      duplicate_of: fc.option(fact, { nil: null })
    }).map((o) => ({
      output: o,
      items: [o.fact, ...(o.fork?.siblings ?? []), ...(o.duplicate_of === null ? [] : [o.duplicate_of])]
    }))
  },
  {
    tool: resolveConflict,
    output: fc.record({
      outcome: fc.constant("supersede" as const),
      winner: fact,
      loser: fact,
      reason: text,
      resolved_by: name,
      created_at: stamp,
      already_resolved: fc.boolean(),
      stale: fc.array(dependent, { maxLength: 4 }),
      stale_next_cursor: cursor
    }).map((o) => ({ output: o, items: [o.winner, o.loser, o.reason, ...o.stale] }))
  },
  {
    tool: retractFact,
    output: fc.record({
      retraction_id: fc.uuid(),
      fact,
      reason: text,
      retracted_by: name,
      created_at: stamp,
      already_retracted: fc.boolean(),
      stale: fc.array(dependent, { maxLength: 4 }),
      stale_next_cursor: cursor
    }).map((o) => ({ output: o, items: [o.fact, o.reason, ...o.stale] }))
  }
]

/** The message as the transport writes it (the SDK's stdio transport and the HTTP edge both JSON.stringify it). */
const sentBytes = (tool: AnyTool, output: unknown, now: number) =>
  Buffer.byteLength(JSON.stringify({
    jsonrpc: "2.0",
    id: 123456,
    result: {
      content: [{ type: "text", text: renderResult(tool, output, now) }],
      structuredContent: Schema.encodeUnknownSync(tool.output)(output)
    }
  }))

describe("the reply's byte measure against the bytes really sent", () => {
  for (const { output, tool } of cases) {
    it.prop(
      `${tool.name}: every reply spends at most what its items measure, plus the frame`,
      [output, fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 })],
      ([{ items, output: o }, now]) => {
        const measured = items.reduce<number>((sum, x) => sum + replyCost(x) + 1, 0)
        const sent = sentBytes(tool, o, now)
        expect(sent).toBeLessThanOrEqual(measured + replyFrameBytes)
        // And not wildly above it: the cut would waste most of the budget.
        expect(measured).toBeLessThanOrEqual(3 * sent)
      },
      { fastCheck: { numRuns: 60 } }
    )
  }

  it("a pad of one word and 1,999 DEL, tag or C1 characters measures what the reply spends", () => {
    for (const pad of ["\u007f", "\u{E0041}", "\u0085", "\u00ad"]) {
      const f: Fact = {
        id: "0b8f2a52-8b1e-4a8e-9d36-0c6a1b8f2a52",
        content: `word${pad.repeat(1999)}`,
        written_by: "w",
        session_id: "s",
        created_at: "2026-12-01T00:00:00.000Z",
        parent_id: null,
        status: "active"
      }
      const sent = sentBytes(getCurrentState, { facts: [f], next_cursor: null }, Date.parse(f.created_at))
      const measured = replyCost(f)
      expect(sent).toBeLessThanOrEqual(measured + replyFrameBytes)
      expect(measured).toBeLessThan(sent * 1.2)
    }
  })
})
