import { tools } from "../tools/registry.js"
/**
 * `npm run demo`: the story played through the real dist/server.js in a graph of its own, which is
 * dropped at the end, then the client configuration for this install.
 */
import { Console, Effect, Option } from "effect"
import { GraphDatabase } from "../services/GraphDatabase.js"
import { clientConfigLines, type InstallInfo } from "./clientConfig.js"
import { connectServer, DemoFailed } from "./mcpSession.js"
import { playStory } from "./play.js"
import type { Style } from "./style.js"

export interface DemoOptions {
  readonly install: InstallInfo
  readonly style: Style
  /** The database in words (never a password). */
  readonly database: string
  /** The graph made for the demo (the GraphDatabase provided is this graph) and dropped at the end. */
  readonly graph: string
  /** The graph the user's memory lives in (RELAY_GRAPH), which the demo never touches. */
  readonly userGraph: string
  /** The database is the embedded server (which keeps running after the demo). */
  readonly embedded: boolean
  /** The environment the server is started with; RELAY_GRAPH is set to the demo's graph. */
  readonly serverEnv: Record<string, string>
}

const tail = (log: string, lines: number) => log.trim().split("\n").slice(-lines).filter((l) => l.trim() !== "")

export const runDemo = Effect.fn("relay/demo/runDemo")(function*(options: DemoOptions) {
  const { install, style } = options
  const { graph } = options
  const db = yield* GraphDatabase
  yield* Console.log(
    [style.bold("Relay demo: two assistants, one shared memory"), `  database  ${options.database}`].join("\n")
  )
  const versions = yield* db.versions
  const falkor = Option.match(versions.module, { onNone: () => "FalkorDB", onSome: (v) => `FalkorDB ${v}` })
  yield* Console.log([
    `  server    ${falkor}${Option.match(versions.server, { onNone: () => "", onSome: (s) => ` on ${s}` })}`,
    `  graph     ${graph} ${
      style.dim(
        `(made for this demo and dropped at the end; your memory, graph "${options.userGraph}", is not touched)`
      )
    }`,
    `  relay     ${install.nodePath} ${install.serverPath}`,
    `            ${style.dim("driven through the MCP SDK's v2 Client over stdio, as Claude Desktop and Cursor run it")}`
  ].join("\n"))

  yield* Effect.scoped(
    Effect.gen(function*() {
      // Registered first, so it runs last: after the client is closed and the server has gone.
      yield* Effect.addFinalizer(() =>
        db.dropGraph.pipe(
          Effect.zipRight(Console.log(`Dropped the demo graph ${graph}.`)),
          Effect.catchAll(() =>
            Console.error(`Could not drop the demo graph ${graph}; drop it with GRAPH.DELETE ${graph}.`)
          )
        )
      )
      const session = yield* connectServer({
        nodePath: install.nodePath,
        serverPath: install.serverPath,
        env: { ...options.serverEnv, RELAY_GRAPH: graph }
      })
      yield* Console.log([
        `            ${
          style.dim(
            `MCP ${session.protocolVersion}; ${session.toolNames.length} tools listed: ${session.toolNames.join(", ")}`
          )
        }`,
        `            ${
          style.dim(
            "A host that renders MCP Apps draws a thread in the chat beside the text of relay_get_context " +
              "and relay_detect_conflicts; here the text is drawn in the terminal."
          )
        }`
      ].join("\n"))
      if (session.toolNames.length !== tools.length) {
        return yield* new DemoFailed({
          step: "listing the tools",
          message: `the server lists ${session.toolNames.length} tools, not ${tools.length}`
        })
      }
      const played = yield* playStory(session, style).pipe(
        Effect.tapError(() => {
          const log = tail(session.serverLog(), 8)
          return log.length === 0
            ? Effect.void
            : Console.error(["server log (last lines):", ...log.map((l) => `  ${l}`)].join("\n"))
        })
      )
      yield* Console.log(
        "\n" +
          style.green(
            `✓ Every step showed what it should: ${played.calls} tool calls in ${(played.millis / 1000).toFixed(1)} s.`
          )
      )
    })
  )
  if (options.embedded) {
    yield* Console.log(
      style.dim("The embedded FalkorDB keeps running for your assistants; `npm run db -- stop` stops it.")
    )
  }
  yield* Console.log(["", ...clientConfigLines(install, style)].join("\n"))
})
