/**
 * What every step of the demo shares: the MCP session (counting its calls), the printing, the
 * story's keys mapped to the ids Relay made, and the checks that fail the demo with a sentence.
 */
import { Console, Effect } from "effect"
import { DemoFailed, type McpSession } from "./mcpSession.js"
import { storyFacts } from "./story.js"
import type { Style } from "./style.js"

const MAX_QUOTE = 72

export const q = (content: string) =>
  JSON.stringify(content.length > MAX_QUOTE ? `${content.slice(0, MAX_QUOTE - 1)}…` : content)

export const indent = (lines: ReadonlyArray<string>) => lines.map((l) => (l === "" ? l : `  ${l}`))

export const check = (step: string, ok: boolean, message: string) =>
  ok ? Effect.void : Effect.fail(new DemoFailed({ step, message }))

export const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join()

export interface Stage {
  readonly style: Style
  readonly call: McpSession["call"]
  readonly calls: () => number
  readonly out: (...lines: ReadonlyArray<string>) => Effect.Effect<void>
  readonly heading: (n: number, title: string, tool: string) => Effect.Effect<void>
  /** Story key → id, filled in as the story's facts are saved. */
  readonly ids: Map<string, string>
  readonly id: (key: string) => string
  /** Id → story key. */
  readonly keyOf: Map<string, string>
  readonly contentOf: (key: string) => string
  readonly short: (factId: string) => string
}

export const makeStage = (session: McpSession, style: Style): Stage => {
  let calls = 0
  const ids = new Map<string, string>()
  const out = (...lines: ReadonlyArray<string>) => Console.log(lines.join("\n"))
  return {
    style,
    call: (step, tool, args, output) => {
      calls++
      return session.call(step, tool, args, output)
    },
    calls: () => calls,
    out,
    heading: (n, title, tool) => out("", `${style.bold(`Step ${n}`)} · ${title}  ${style.cyan(`→ ${tool}`)}`),
    ids,
    id: (key) => ids.get(key) ?? "",
    keyOf: new Map(),
    contentOf: (key) => storyFacts.find((f) => f.key === key)?.content ?? key,
    short: (factId) => factId.slice(0, 8)
  }
}
