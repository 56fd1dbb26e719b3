/**
 * The demo itself: plays the story through a real MCP session and checks, step by step, that each
 * tool shows what it should. Prints the tool called and a short readable result for every step,
 * and draws the memory as a tree before and after the fork is settled.
 */
import { Clock, Console, Effect } from "effect"
import type { Fact } from "../domain/fact.js"
import {
  BriefingOutput,
  ClustersOutput,
  ConflictsOutput,
  CurrentStateOutput,
  ImpactOutput,
  ImportantFactsOutput,
  SaveFactOutput,
  SearchOutput,
  SupersedeOutput
} from "../domain/outputs.js"
import { DemoFailed, type McpSession } from "./mcpSession.js"
import {
  resolveArguments,
  saveArguments,
  storyBriefing,
  storyFacts,
  storyFork,
  storyResolution,
  storyStale,
  storyThreads
} from "./story.js"
import type { Style } from "./style.js"
import { type DrawnDecision, drawTree, legend } from "./tree.js"

const MAX_QUOTE = 72

const q = (content: string) =>
  JSON.stringify(content.length > MAX_QUOTE ? `${content.slice(0, MAX_QUOTE - 1)}…` : content)

const indent = (lines: ReadonlyArray<string>) => lines.map((l) => (l === "" ? l : `  ${l}`))

const check = (step: string, ok: boolean, message: string) =>
  ok ? Effect.void : Effect.fail(new DemoFailed({ step, message }))

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join()

export interface PlayResult {
  readonly calls: number
  readonly millis: number
}

export const playStory = Effect.fn("relay/demo/playStory")(function*(session: McpSession, style: Style) {
  const started = yield* Clock.currentTimeMillis
  let calls = 0
  const call: McpSession["call"] = (step, tool, args, output) => {
    calls++
    return session.call(step, tool, args, output)
  }
  const out = (...lines: ReadonlyArray<string>) => Console.log(lines.join("\n"))
  const heading = (n: number, title: string, tool: string) =>
    out("", `${style.bold(`Step ${n}`)} · ${title}  ${style.cyan(`→ ${tool}`)}`)

  const ids = new Map<string, string>()
  const id = (key: string) => ids.get(key) ?? ""
  const keyOf = new Map<string, string>()
  const contentOf = (key: string) => storyFacts.find((f) => f.key === key)?.content ?? key
  const short = (factId: string) => factId.slice(0, 8)

  // Step 1: both assistants save what they decide, one fact at a time, as they would in a session.
  yield* heading(1, "claude-desktop and cursor save what they decide", "relay_save_fact")
  const saved: Array<Fact> = []
  for (const fact of storyFacts) {
    const step = `saving ${q(fact.content)}`
    const r = yield* call(step, "relay_save_fact", saveArguments(fact, ids), SaveFactOutput)
    ids.set(fact.key, r.fact.id)
    keyOf.set(r.fact.id, fact.key)
    saved.push(r.fact)
    const expectedSiblings = storyFacts
      .filter((s) => s.parent !== null && s.parent === fact.parent && ids.has(s.key) && s.key !== fact.key)
      .map((s) => id(s.key))
    const siblings = r.fork?.siblings.map((s) => s.id) ?? []
    yield* check(
      step,
      sameSet(siblings, expectedSiblings),
      expectedSiblings.length > 0
        ? `the fork was not detected: saving ${q(fact.content)} should report ${q(contentOf(storyFork.a))} as a sibling`
        : `saving ${q(fact.content)} reported a fork where there is none`
    )
    yield* check(step, r.duplicate_of === null, `saving ${q(fact.content)} reported a duplicate where there is none`)
    const where = fact.parent === null
      ? style.dim("starts a thread")
      : style.dim(`builds on ${short(id(fact.parent))}`)
    const fork = r.fork === null
      ? ""
      : "  " + style.yellow(`⑂ fork! ${r.fork.siblings.map((s) => `${s.written_by} said ${q(s.content)}`).join("; ")}`)
    yield* out(`  ${fact.writtenBy.padEnd(14)} ${style.dim(short(r.fact.id))} ${q(fact.content)}  ${where}${fork}`)
  }
  yield* out("", `  ${legend(style)}`, ...indent(drawTree(saved, [], style)))

  // Step 2: the fork, found by the tool any assistant would call.
  yield* heading(2, "find where they disagree", "relay_detect_conflicts")
  const detected = yield* call("detecting the conflict", "relay_detect_conflicts", {}, ConflictsOutput)
  yield* check(
    "detecting the conflict",
    detected.conflicts.length === 1,
    `relay_detect_conflicts should find exactly the one fork, found ${detected.conflicts.length}`
  )
  const conflict = detected.conflicts[0]!
  const children = conflict.children.map((c) => c.id)
  yield* check(
    "detecting the conflict",
    conflict.parent.id === id(storyFork.parent) && children.length === 2 &&
      children.includes(id(storyFork.a)) && children.includes(id(storyFork.b)),
    `the conflict found is not the fork under ${q(contentOf(storyFork.parent))}`
  )
  yield* out(
    `  1 open conflict under ${q(conflict.parent.content)}:`,
    ...conflict.children.map((c) => `    -  ${q(c.content)} ${style.dim(`· ${c.written_by}`)}`)
  )

  // Step 3: settle it.
  yield* heading(3, `${storyResolution.resolvedBy} settles it`, "relay_resolve_conflict")
  const resolved = yield* call(
    "resolving the conflict",
    "relay_resolve_conflict",
    resolveArguments(ids),
    SupersedeOutput
  )
  const staleKeys = storyStale.map((s) => id(s.key))
  yield* check(
    "resolving the conflict",
    resolved.winner.id === id(storyResolution.winner) && resolved.loser.id === id(storyResolution.loser) &&
      resolved.loser.status === "superseded" && !resolved.already_resolved,
    "the resolution did not record the winner over the loser"
  )
  yield* check(
    "resolving the conflict",
    sameSet(resolved.stale.map((d) => d.fact.id), staleKeys),
    `the resolution should report ${storyStale.length} stale facts, reported ${resolved.stale.length}`
  )
  yield* out(
    `  ${style.green("★")} ${q(resolved.winner.content)} wins over ${style.red("✗")} ${q(resolved.loser.content)}`,
    `  reason: ${q(resolved.reason)} ${style.dim(`· ${resolved.resolved_by}`)}`,
    `  ${resolved.stale.length} fact(s) built on the loser are now stale`
  )

  // Step 4: what the decision made stale.
  yield* heading(4, "what rests on the losing answer", "relay_get_impact")
  const impact = yield* call(
    "reading the impact of the loser",
    "relay_get_impact",
    { fact_id: resolved.loser.id },
    ImpactOutput
  )
  yield* check(
    "reading the impact of the loser",
    impact.dependents.length > 0,
    "the stale list is empty: nothing builds on the loser"
  )
  yield* check(
    "reading the impact of the loser",
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

  // Step 5: cursor starts its next session with a briefing.
  yield* heading(5, `${storyBriefing.reader} starts its next session`, "relay_get_briefing")
  const briefing = yield* call(
    "reading the briefing",
    "relay_get_briefing",
    { my_name: storyBriefing.reader },
    BriefingOutput
  )
  const fromOthers = storyFacts.filter((f) => f.writtenBy === storyBriefing.learnsFrom).map((f) => id(f.key))
  yield* check(
    "reading the briefing",
    fromOthers.every((factId) => briefing.new_facts.some((f) => f.id === factId)) &&
      briefing.new_facts.every((f) => f.written_by !== storyBriefing.reader),
    `the briefing for ${storyBriefing.reader} does not show exactly what ${storyBriefing.learnsFrom} saved`
  )
  const decision = briefing.decisions.find((d) =>
    d.winner.id === resolved.winner.id && d.loser.id === resolved.loser.id
  )
  yield* check("reading the briefing", decision !== undefined, "the briefing is missing the decision")
  yield* check(
    "reading the briefing",
    briefing.open_conflicts.length === 0,
    "the briefing still shows an open conflict"
  )
  yield* out(`  ${briefing.new_facts.length} new fact(s) by others since its last briefing (as of ${briefing.as_of}):`)
  for (const f of briefing.new_facts) yield* out(`    + ${q(f.content)} ${style.dim(`· ${f.written_by}`)}`)
  for (const d of briefing.decisions) {
    yield* out(`  decision by ${d.resolved_by}: ${q(d.winner.content)} over ${q(d.loser.content)}, ${q(d.reason)}`)
  }
  yield* out(`  open conflicts: ${briefing.open_conflicts.length === 0 ? "none" : briefing.open_conflicts.length}`)

  // Step 6: a session that knows no id asks what was decided, in one call.
  yield* heading(6, `${storyBriefing.reader} asks what was decided about refresh tokens`, "relay_search")
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

  // Step 7: what most later work rests on.
  yield* heading(7, "the facts most work rests on", "relay_get_important_facts")
  const important = yield* call(
    "reading the important facts",
    "relay_get_important_facts",
    { limit: 3 },
    ImportantFactsOutput
  )
  yield* check(
    "reading the important facts",
    important.facts[0]?.fact.id === id(storyThreads[0]!.root),
    `the most important fact should be ${q(contentOf(storyThreads[0]!.root))}`
  )
  for (const [i, x] of important.facts.entries()) {
    yield* out(`  ${i + 1}. ${x.score.toFixed(3)}  ${q(x.fact.content)}`)
  }

  // Step 8: the threads, as connected groups.
  yield* heading(8, "the separate threads of work", "relay_get_clusters")
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
  const state = yield* call(
    "reading the current state",
    "relay_get_current_state",
    { limit: 100, status: "any" },
    CurrentStateOutput
  )
  const expected = (key: string) =>
    key === storyResolution.loser ? "superseded" : storyStale.some((s) => s.key === key) ? "stale" : "active"
  yield* check(
    "reading the current state",
    state.facts.length === storyFacts.length &&
      state.facts.every((f) => expected(keyOf.get(f.id) ?? "") === f.status),
    "the memory does not show the loser superseded and its branch stale"
  )
  const decisions: Array<DrawnDecision> = [{ winnerId: resolved.winner.id, loserId: resolved.loser.id }]
  yield* out(
    "",
    `${style.bold("The shared memory now")}  ${style.cyan("→ relay_get_current_state")}`,
    `  ${legend(style)}`,
    ...indent(drawTree(state.facts, decisions, style))
  )

  const finished = yield* Clock.currentTimeMillis
  return { calls: calls, millis: finished - started } satisfies PlayResult
})
