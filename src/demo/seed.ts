/**
 * Loads the demo story into the configured graph through the same path as an MCP tool call
 * (input decoding, secret scanner, rate limit, FactStore), so nothing skips validation.
 */
import { Console, Effect, Schema } from "effect"
import { ResolveConflictOutput, SaveFactOutput, SupersedeOutput } from "../domain/outputs.js"
import { callTool } from "../mcp/callTool.js"
import { resolveConflict } from "../tools/resolveConflict.js"
import { saveFact } from "../tools/saveFact.js"
import type { AnyTool } from "../tools/Tool.js"
import { compatibleArguments, resolveArguments, saveArguments, storyFacts, storyResolution } from "./story.js"

export class SeedFailed extends Schema.TaggedError<SeedFailed>()("SeedFailed", { message: Schema.String }) {}

const run = <A, I>(tool: AnyTool, args: Record<string, unknown>, output: Schema.Schema<A, I>) =>
  callTool(tool, args).pipe(
    Effect.flatMap((r) =>
      r.isError === true
        ? Effect.fail(new SeedFailed({ message: `${tool.name} answered ${r.content[0]?.text ?? "an error"}` }))
        : Schema.decodeUnknown(output)(r.structuredContent).pipe(
          Effect.mapError(() => new SeedFailed({ message: `${tool.name} returned an unexpected result` }))
        )
    )
  )

const q = (s: string) => JSON.stringify(s)

/** Saves every story fact in order, then the decision and the compatible pair; prints one line each. */
export const loadStory = Effect.gen(function*() {
  const ids = new Map<string, string>()
  for (const fact of storyFacts) {
    const saved = yield* run(saveFact, saveArguments(fact, ids), SaveFactOutput)
    ids.set(fact.key, saved.fact.id)
    yield* Console.log(`  + ${saved.fact.id}  ${fact.writtenBy.padEnd(14)} ${q(fact.content)}`)
  }
  const resolved = yield* run(resolveConflict, resolveArguments(ids), SupersedeOutput)
  yield* Console.log(
    `  ★ ${q(resolved.winner.content)} supersedes ${q(resolved.loser.content)}: ${q(storyResolution.reason)}` +
      ` (${resolved.stale.length} facts now stale)`
  )
  const compatible = yield* run(resolveConflict, compatibleArguments(ids), ResolveConflictOutput)
  yield* Console.log(`  = ${(compatible.facts ?? []).map((f) => q(f.content)).join(" and ")} both stand`)
  return { facts: storyFacts.length, decisions: 2 }
})
