/**
 * The demo itself: plays the story through a real MCP session and checks, step by step, that each
 * tool shows what it should. Prints the tool called and a short readable result for every step,
 * and draws the memory as a tree before the forks are settled and after.
 */
import { Clock, Effect } from "effect"
import type { McpSession } from "./mcpSession.js"
import { playConfirm } from "./playConfirm.js"
import { playDecisions } from "./playDecide.js"
import { makeStage } from "./playKit.js"
import { playProcedures } from "./playProcedures.js"
import { playReads } from "./playReads.js"
import { playTasks } from "./playTasks.js"
import type { Style } from "./style.js"

export interface PlayResult {
  readonly calls: number
  readonly millis: number
}

export const playStory = Effect.fn("relay/demo/playStory")(function*(session: McpSession, style: Style) {
  const started = yield* Clock.currentTimeMillis
  const stage = makeStage(session, style)
  const decided = yield* playDecisions(stage)
  yield* playReads(stage, decided)
  yield* playConfirm(stage)
  yield* playTasks(stage)
  yield* playProcedures(stage)
  const finished = yield* Clock.currentTimeMillis
  return { calls: stage.calls(), millis: finished - started } satisfies PlayResult
})
