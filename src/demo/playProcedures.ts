/**
 * Step 13 of the demo (issue 44): procedures that learn. An agent follows a runbook and it fails
 * for a reason nobody wrote down; its run record carries the cause and a lesson, which makes v2
 * with that lesson as a mandatory first check; the next agent that asks for the goal gets v2 first,
 * checks shown before steps, with v1's failure kept as v1's.
 */
import { Effect } from "effect"
import { SaveFactOutput } from "../domain/outputs.js"
import { FindProcedureOutput, RecordRunOutput } from "../domain/procedures.js"
import { check, q, type Stage } from "./playKit.js"

const lesson = "Check deploy history within 30 minutes before restarting cache"

export const playProcedures = Effect.fn("relay/demo/playProcedures")(function*(stage: Stage) {
  const { call, heading, out, style } = stage
  yield* heading(13, "a runbook fails, learns a precondition, and the next agent gets v2", "relay_record_run")
  const step = "a procedure that learns"
  const v1 = yield* call(step, "relay_save_fact", {
    content: "Restart the Redis cache during a latency spike",
    steps: ["Drain traffic from the cache", "Restart redis", "Warm the hot keys"],
    written_by: "claude-desktop",
    session_id: "demo-procedures",
    request_id: "demo-restart-redis"
  }, SaveFactOutput)
  yield* out(`  ${style.dim("v1")} ${q(v1.fact.content)}: ${v1.procedure?.steps.length ?? 0} steps, never run`)
  const failed = yield* call(step, "relay_record_run", {
    procedure_id: v1.fact.id,
    outcome: "failure",
    failed_step: 2,
    note: "The spike came from an unannounced deploy; the restart dropped every session",
    lesson,
    ran_by: "cursor",
    request_id: "demo-restart-run-1"
  }, RecordRunOutput)
  const v2 = failed.revision
  yield* check(
    step,
    v2 !== undefined && v2.preconditions[0] === lesson,
    "the failure's lesson should be v2's first check"
  )
  yield* out(
    `  ${style.red("✗")} cursor's run failed at step 2: ${q(failed.run.note ?? "")}`,
    `  ${style.green("✓")} v2 supersedes v1; its first mandatory check: ${q(lesson)}`
  )
  const found = yield* call(step, "relay_find_procedure", { goal: "restart redis cache" }, FindProcedureOutput)
  const first = found.procedures[0]
  yield* check(
    step,
    first?.fact.id === v2?.fact.id && first?.earlier[0]?.runs.failure === 1,
    "the next agent should get v2 first, with v1's failed run shown as v1's"
  )
  yield* out(
    `  ${style.green("✓")} zed asks for the goal and gets v${first?.version}: check ${
      q(first?.preconditions[0] ?? "")
    } ` +
      `first, then ${first?.steps.length} steps (v1: ${first?.earlier[0]?.runs.failure} failed run)`
  )
})
