/**
 * Step 12 of the demo: two assistants race for one task through the real MCP session; exactly one
 * wins, and the other is told who holds it and until when. Then a destructive task waits for a
 * person: nobody can claim it until it is approved, and the demo approves it through the code path
 * of `npm run task -- approve` itself (src/cli/taskCommand.ts), as a person would in their shell.
 */
import { Effect, Either } from "effect"
import { runTaskCommand } from "../cli/taskCommand.js"
import { ClaimTaskOutput, PostTaskOutput } from "../domain/tasks.js"
import { TaskStoreLive } from "../layers/tasks/TaskStoreLive.js"
import { check, q, type Stage } from "./playKit.js"

/** A claim's answer, or the refusal's text (`<code>: <message>`): the session fails a refused call. */
const claimOf = (stage: Stage, step: string, args: Record<string, unknown>) =>
  Effect.either(stage.call(step, "relay_claim_task", args, ClaimTaskOutput)).pipe(
    Effect.map(Either.mapLeft((e) => e.message.replace(/^relay_claim_task answered /, "")))
  )

export const playTasks = Effect.fn("relay/demo/playTasks")(function*(stage: Stage) {
  const { call, heading, out, style } = stage
  yield* heading(12, "two assistants race for one task; a destructive one waits for a person", "relay_claim_task")
  const step = "racing for a task"
  const posted = yield* call(step, "relay_post_task", {
    title: "Fix the flaky login test",
    written_by: "claude-desktop",
    request_id: "demo-fix-login"
  }, PostTaskOutput)
  const both = yield* Effect.all([
    claimOf(stage, step, { claimed_by: "cursor", task_id: posted.task.id }),
    claimOf(stage, step, { claimed_by: "zed", task_id: posted.task.id })
  ], { concurrency: 2 })
  const winner = both.flatMap((r) => Either.isRight(r) ? [r.right] : [])
  const loser = both.flatMap((r) => Either.isLeft(r) ? [r.left] : [])
  const holder = winner[0]?.task?.claimed_by ?? "?"
  yield* check(
    step,
    winner.length === 1 && loser.length === 1 && loser[0]!.startsWith("already_claimed") &&
      loser[0]!.includes(holder),
    "exactly one claim should win and the other be told who holds the task"
  )
  yield* out(
    `  ${style.green("✓")} ${holder} holds ${q(posted.task.title)} (fencing token ${winner[0]?.fencing_token})`,
    `  ${style.red("✗")} the other: ${loser[0]}`
  )

  const gate = "a destructive task"
  const drop = yield* call(gate, "relay_post_task", {
    title: "Drop the legacy sessions table",
    written_by: "cursor",
    needs_approval: true,
    request_id: "demo-drop-sessions"
  }, PostTaskOutput)
  const early = yield* claimOf(stage, gate, { claimed_by: "zed", task_id: drop.task.id })
  yield* check(gate, Either.isLeft(early), "a task awaiting approval must not be claimable")
  yield* out(`  ${style.yellow("⏸")} ${q(drop.task.title)}: ${Either.isLeft(early) ? early.left : ""}`)
  const approved = yield* Effect.either(
    runTaskCommand({ command: "approve", id: drop.task.id, by: "demo-person", graph: undefined, workspace: undefined })
      .pipe(Effect.provide(TaskStoreLive))
  )
  yield* check(gate, Either.isRight(approved), "the approval through npm run task's code path failed")
  yield* out(`  ${style.dim(`npm run task -- approve ${drop.task.id}  (the demo runs that command's code path)`)}`)
  const after = yield* claimOf(stage, gate, { claimed_by: "zed", task_id: drop.task.id })
  yield* check(gate, Either.isRight(after), "the approved task should be claimable")
  yield* out(`  ${style.green("✓")} approved by a person; zed now holds it`)
})
