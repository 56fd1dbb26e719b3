/**
 * Steps 1 to 4 of the demo: the assistants save, Relay shows where they fork, one fork is settled
 * by a decision and the other recorded as compatible (both stand).
 */
import { Effect } from "effect"
import type { Fact } from "../domain/fact.js"
import { ConflictsOutput, ResolveConflictOutput, SaveFactOutput, SupersedeOutput } from "../domain/outputs.js"
import { check, indent, q, sameSet, type Stage } from "./playKit.js"
import {
  compatibleArguments,
  resolveArguments,
  saveArguments,
  storyCompatible,
  storyFacts,
  storyFork,
  storyResolution,
  storyStale
} from "./story.js"
import { drawTree, legend } from "./tree.js"

export const playDecisions = Effect.fn("relay/demo/playDecisions")(function*(stage: Stage) {
  const { call, contentOf, heading, id, ids, keyOf, out, short, style } = stage
  // Step 1: both assistants save what they decide, one fact at a time, as they would in a session.
  yield* heading(1, "claude-desktop and cursor save what they decide", "relay_save_fact")
  const saved: Array<Fact> = []
  for (const fact of storyFacts) {
    const step = `saving ${q(fact.content)}`
    const r = yield* call(step, "relay_save_fact", saveArguments(fact, ids), SaveFactOutput)
    ids.set(fact.key, r.fact.id)
    keyOf.set(r.fact.id, fact.key)
    saved.push(r.fact)
    // A detail forks with nothing (domain/model/conflicts.ts).
    const expected = fact.kind === "detail" ? [] : storyFacts
      .filter((s) =>
        s.parent !== null && s.parent === fact.parent && ids.has(s.key) && s.key !== fact.key && s.kind !== "detail"
      )
    const siblings = r.fork?.siblings.map((s) => s.id) ?? []
    yield* check(
      step,
      sameSet(siblings, expected.map((s) => id(s.key))),
      expected.length > 0
        ? `the fork was not detected: saving ${q(fact.content)} should report ${
          expected.map((s) => q(s.content)).join(", ")
        } as a sibling`
        : `saving ${q(fact.content)} reported a fork where there is none`
    )
    yield* check(step, r.duplicate_of === null, `saving ${q(fact.content)} reported a duplicate where there is none`)
    const where = fact.parent === null
      ? style.dim("starts a thread")
      : style.dim(`builds on ${short(id(fact.parent))}`)
    const fork = r.fork === null
      ? ""
      : "  " + style.yellow(`⑂ fork! ${r.fork.siblings.map((s) => `${s.written_by} said ${q(s.content)}`).join("; ")}`)
    const kind = fact.kind === undefined ? "" : ` ${style.dim(`(${fact.kind})`)}`
    yield* out(
      `  ${fact.writtenBy.padEnd(14)} ${style.dim(short(r.fact.id))} ${q(fact.content)}  ${where}${kind}${fork}`
    )
  }
  yield* out("", `  ${legend(style)}`, ...indent(drawTree(saved, [], style)))

  // Step 2: the forks, found by the tool any assistant would call.
  yield* heading(2, "find where they differ", "relay_detect_conflicts")
  const detected = yield* call("detecting the conflicts", "relay_detect_conflicts", {}, ConflictsOutput)
  const forks = [storyFork.parent, storyCompatible.parent].map(id)
  yield* check(
    "detecting the conflicts",
    sameSet(detected.conflicts.map((c) => c.parent.id), forks),
    `relay_detect_conflicts should find the two forks, found ${detected.conflicts.length}`
  )
  const contested = detected.conflicts.find((c) => c.parent.id === id(storyFork.parent))!
  yield* check(
    "detecting the conflicts",
    sameSet(contested.children.map((c) => c.id), [id(storyFork.a), id(storyFork.b)]),
    `the conflict under ${q(contentOf(storyFork.parent))} is not between its two answers`
  )
  for (const conflict of detected.conflicts) {
    yield* out(
      `  open conflict under ${q(conflict.parent.content)}:`,
      ...conflict.children.map((c) => `    -  ${q(c.content)} ${style.dim(`· ${c.written_by}`)}`)
    )
  }

  // Step 3: settle the contested one.
  yield* heading(3, `${storyResolution.resolvedBy} settles where refresh tokens live`, "relay_resolve_conflict")
  const resolved = yield* call(
    "resolving the conflict",
    "relay_resolve_conflict",
    resolveArguments(ids),
    SupersedeOutput
  )
  yield* check(
    "resolving the conflict",
    resolved.winner.id === id(storyResolution.winner) && resolved.loser.id === id(storyResolution.loser) &&
      resolved.loser.status === "superseded" && !resolved.already_resolved,
    "the resolution did not record the winner over the loser"
  )
  yield* check(
    "resolving the conflict",
    sameSet(resolved.stale.map((d) => d.fact.id), storyStale.map((s) => id(s.key))),
    `the resolution should report ${storyStale.length} stale facts, reported ${resolved.stale.length}`
  )
  yield* out(
    `  ${style.green("★")} ${q(resolved.winner.content)} wins over ${style.red("✗")} ${q(resolved.loser.content)}`,
    `  reason: ${q(resolved.reason)} ${style.dim(`· ${resolved.resolved_by}`)}`,
    `  ${resolved.stale.length} fact(s) built on the loser are now stale`
  )

  // Step 4: the other fork is detail, not disagreement: both stand.
  yield* heading(4, `${storyCompatible.resolvedBy} records the migration rules as compatible`, "relay_resolve_conflict")
  const step = "recording the compatible pair"
  const compatible = yield* call(step, "relay_resolve_conflict", compatibleArguments(ids), ResolveConflictOutput)
  const pair = compatible.facts ?? []
  yield* check(
    step,
    compatible.outcome === "compatible" && sameSet(pair.map((f) => f.id), storyCompatible.facts.map(id)) &&
      pair.every((f) => f.status === "active") && compatible.stale.length === 0,
    "the compatible outcome did not keep both facts standing"
  )
  yield* out(
    // In the story's order: the server answers the pair by id, which differs run to run.
    `  = both stand: ${
      storyCompatible.facts.flatMap((key) => pair.filter((f) => f.id === id(key))).map((f) => q(f.content)).join(
        " and "
      )
    }`,
    `  reason: ${q(compatible.reason)} ${style.dim(`· ${compatible.resolved_by}`)}`
  )
  const pairIds = [id(storyCompatible.facts[0]), id(storyCompatible.facts[1])] as const
  return { resolved, compatible: pairIds }
})
