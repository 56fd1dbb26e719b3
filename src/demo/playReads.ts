/**
 * Steps 5 to 10 of the demo and the tree before the last: what the decision made stale, the automatic
 * briefing of the other assistant, a search for what was decided, the facts most work rests on,
 * the threads, and a revision in one call.
 */
import { Effect } from "effect"
import {
  BriefingOutput,
  ClustersOutput,
  CurrentStateOutput,
  ImpactOutput,
  ImportantFactsOutput,
  SaveFactOutput,
  SearchOutput,
  type SupersedeOutput
} from "../domain/outputs.js"
import { check, indent, q, type Stage } from "./playKit.js"
import {
  revisionArguments,
  storyBriefing,
  storyFacts,
  storyResolution,
  storyRevision,
  storyStale,
  storyThreads
} from "./story.js"
import { drawTree, legend } from "./tree.js"

export interface Decided {
  readonly resolved: typeof SupersedeOutput.Type
  readonly compatible: readonly [string, string]
}

export const playReads = Effect.fn("relay/demo/playReads")(function*(stage: Stage, decided: Decided) {
  const { call, contentOf, heading, id, keyOf, out, style } = stage
  const { resolved } = decided

  // Step 5: what the decision made stale.
  yield* heading(5, "what rests on the losing answer", "relay_get_impact")
  const impactStep = "reading the impact of the loser"
  const impact = yield* call(impactStep, "relay_get_impact", { fact_id: resolved.loser.id }, ImpactOutput)
  yield* check(impactStep, impact.dependents.length > 0, "the stale list is empty: nothing builds on the loser")
  yield* check(
    impactStep,
    impact.dependents.length === storyStale.length &&
      impact.dependents.every((d, i) =>
        d.fact.id === id(storyStale[i]!.key) && d.distance === storyStale[i]!.distance && d.fact.status === "stale"
      ),
    "relay_get_impact does not list the facts built on the loser as stale, nearest first"
  )
  for (const d of impact.dependents) {
    yield* out(
      `  ${style.yellow("⚠")} distance ${d.distance}  ${q(d.fact.content)} ${style.dim(`· ${d.fact.written_by}`)}`
    )
  }

  // Step 6: cursor starts its next session with a briefing; Relay keeps its place, so no `since`.
  yield* heading(6, `${storyBriefing.reader} starts its next session`, "relay_get_briefing")
  const briefingStep = "reading the briefing"
  const briefing = yield* call(briefingStep, "relay_get_briefing", { my_name: storyBriefing.reader }, BriefingOutput)
  const fromOthers = storyFacts.filter((f) => f.writtenBy === storyBriefing.learnsFrom).map((f) => id(f.key))
  yield* check(
    briefingStep,
    fromOthers.every((factId) => briefing.new_facts.some((f) => f.id === factId)) &&
      briefing.new_facts.every((f) => f.written_by !== storyBriefing.reader),
    `the briefing for ${storyBriefing.reader} does not show exactly what ${storyBriefing.learnsFrom} saved`
  )
  const decision = briefing.decisions.find((d) =>
    d.winner.id === resolved.winner.id && d.loser.id === resolved.loser.id
  )
  yield* check(briefingStep, decision !== undefined, "the briefing is missing the decision")
  yield* check(
    briefingStep,
    briefing.open_conflicts.length === 0,
    "the briefing still shows an open conflict (a decision or a compatible record covers both forks)"
  )
  yield* out(`  ${briefing.new_facts.length} new fact(s) by others since its last briefing (as of ${briefing.as_of}):`)
  for (const f of briefing.new_facts) yield* out(`    + ${q(f.content)} ${style.dim(`· ${f.written_by}`)}`)
  for (const d of briefing.decisions) {
    yield* out(`  decision by ${d.resolved_by}: ${q(d.winner.content)} over ${q(d.loser.content)}, ${q(d.reason)}`)
  }
  yield* out(`  open conflicts: ${briefing.open_conflicts.length === 0 ? "none" : briefing.open_conflicts.length}`)

  // Step 7: a session that knows no id asks what was decided, in one call.
  yield* heading(7, `${storyBriefing.reader} asks what was decided about refresh tokens`, "relay_search")
  const found = yield* call("searching", "relay_search", { query: "refresh tokens", limit: 3 }, SearchOutput)
  const winnerHit = found.hits.find((h) => h.fact.id === resolved.winner.id)
  yield* check(
    "searching",
    winnerHit !== undefined && winnerHit.supersedes.some((d) => d.loser_id === resolved.loser.id) &&
      found.hits.every((h) => h.fact.status === "active"),
    "relay_search should find the winner among active facts, with the decision it won"
  )
  for (const h of found.hits) {
    yield* out(`  ${q(h.fact.content)} ${style.dim(`· ${h.fact.written_by}`)}`)
    for (const d of h.supersedes) yield* out(`    won over ${q(d.loser_content)} because ${q(d.reason)}`)
  }

  // Step 8: what most later work rests on.
  yield* heading(8, "the facts most work rests on", "relay_get_important_facts")
  const importantStep = "reading the important facts"
  const important = yield* call(importantStep, "relay_get_important_facts", { limit: 3 }, ImportantFactsOutput)
  yield* check(
    importantStep,
    important.facts[0]?.fact.id === id(storyThreads[0]!.root),
    `the most important fact should be ${q(contentOf(storyThreads[0]!.root))}`
  )
  for (const [i, x] of important.facts.entries()) {
    yield* out(`  ${i + 1}. ${x.score.toFixed(3)}  ${q(x.fact.content)}`)
  }

  // Step 9: the threads, as connected groups.
  yield* heading(9, "the separate threads of work", "relay_get_clusters")
  const clusters = yield* call("reading the clusters", "relay_get_clusters", {}, ClustersOutput)
  yield* check(
    "reading the clusters",
    clusters.clusters.length === storyThreads.length &&
      clusters.clusters.every((c, i) =>
        c.size === storyThreads[i]!.size && c.facts.some((f) => f.id === id(storyThreads[i]!.root))
      ),
    `relay_get_clusters should find ${storyThreads.length} threads of ${
      storyThreads.map((t) => t.size).join(" and ")
    } facts`
  )
  for (const c of clusters.clusters) {
    const root = c.facts.find((f) => f.parent_id === null)
    yield* out(`  ${c.size} facts around ${q(root?.content ?? "?")}`)
  }

  // The memory as it stands now.
  const stateStep = "reading the current state"
  const state = yield* call(stateStep, "relay_get_current_state", { limit: 100, status: "any" }, CurrentStateOutput)
  const expected = (key: string) =>
    key === storyResolution.loser ? "superseded" : storyStale.some((s) => s.key === key) ? "stale" : "active"
  yield* check(
    stateStep,
    state.facts.length === storyFacts.length &&
      state.facts.every((f) => expected(keyOf.get(f.id) ?? "") === f.status),
    "the memory does not show the loser superseded, its branch stale, and the rest active"
  )
  const decisions = [{ winnerId: resolved.winner.id, loserId: resolved.loser.id }]
  yield* out(
    "",
    `${style.bold("The shared memory now")}  ${style.cyan("→ relay_get_current_state")}`,
    `  ${legend(style)}`,
    ...indent(drawTree(state.facts, decisions, style, [decided.compatible]))
  )

  // Step 10: a change of mind is one call: the new fact supersedes the old one, beside it.
  yield* heading(10, `${storyRevision.writtenBy} changes the Redis TTL in one call`, "relay_save_fact supersedes")
  const reviseStep = "revising the Redis TTL"
  const revised = yield* call(reviseStep, "relay_save_fact", revisionArguments(stage.ids), SaveFactOutput)
  yield* check(
    reviseStep,
    revised.revision?.superseded.id === id(storyRevision.revises) &&
      revised.revision.superseded.status === "superseded" &&
      revised.fact.parent_id === id("redis") && revised.fork === null,
    "the revision did not save the new TTL beside the old one and supersede it"
  )
  yield* out(
    `  ${style.green("★")} ${q(revised.fact.content)} revises ${style.red("✗")} ${q(contentOf(storyRevision.revises))}`,
    `  reason: ${q(storyRevision.reason)} ${style.dim(`· ${storyRevision.writtenBy}`)}`,
    `  made stale: ${revised.revision?.stale_total ?? 0} fact(s)`
  )
})
