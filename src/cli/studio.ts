/**
 * `npm run studio [-- --port 8790]`: Relay Studio on this machine. Serves the studio on loopback
 * (127.0.0.1) over the configured database (the embedded one unless one is set) and its graph
 * (RELAY_GRAPH), and prints a one-time login URL: its secret opens one browser session and is then
 * spent. The secret is printed on stdout once and never logged. Run again while it runs, it prints a
 * new link to that studio instead (src/studio/studioJoin.ts).
 */
import { HttpMiddleware, HttpRouter, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { parseArgs } from "node:util"
import { loopbackHosts } from "../http/HttpSettings.js"
import { SettingsLive } from "../layers/assembly/SettingsLive.js"
import { relayStack } from "../layers/assembly/stacks.js"
import type { ToolServices } from "../mcp/mcpHandlers.js"
import { EmbeddedServer } from "../services/EmbeddedServer.js"
import { Settings } from "../services/Settings.js"
import { answerLink, askForLink, linkPath, publishKey } from "../studio/studioJoin.js"
import { studioApp, studioBase } from "../studio/studioServer.js"
import { makeStudioSessions } from "../studio/studioSessions.js"
import { CliFailure, describeDatabase, runCli } from "./common.js"

const USAGE = "usage: npm run studio [-- --port <port>]"

/** A person clicking around spends more calls than an assistant: the studio's own budget. */
const studioRateLimit = 1200

const main = Effect.gen(function*() {
  const { values } = yield* Effect.try({
    try: () => parseArgs({ args: process.argv.slice(2), options: { port: { type: "string", default: "8790" } } }),
    catch: () => new CliFailure({ message: USAGE, exitCode: 2 })
  })
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return yield* new CliFailure({ message: `--port must be a port number\n${USAGE}`, exitCode: 2 })
  }
  const runtime = yield* Effect.runtime<ToolServices>()
  const sessions = makeStudioSessions()
  const { database, graph } = yield* Settings
  const db = yield* describeDatabase(database)
  const local = {
    runtime,
    name: "local",
    where: `graph ${graph} of the ${db.where}`,
    stillValid: Effect.succeed(true),
    release: Effect.void
  }
  // The studio's link key sits beside the embedded server's files, whichever database it reads.
  const { dataDir } = (yield* EmbeddedServer).layout
  let key = ""
  let newLink = () => ""
  let allowedHosts: ReadonlyArray<string> = []
  const studio = studioApp({ sessions, allowedHosts: () => allowedHosts, allowedOrigins: [], local })
  const handler = yield* NodeHttpServer.makeHandler(
    HttpRouter.empty.pipe(
      HttpRouter.all(
        linkPath,
        answerLink({ key: () => key, allowedHosts: () => allowedHosts, newLink: () => newLink() })
      ),
      HttpRouter.all("/", HttpServerResponse.empty({ status: 307, headers: { location: `${studioBase}/` } })),
      HttpRouter.all(studioBase, studio),
      HttpRouter.all(`${studioBase}/*`, studio),
      Effect.catchTag("RouteNotFound", () => HttpServerResponse.empty({ status: 404 }))
    )
  ).pipe(Effect.locally(HttpMiddleware.currentTracerDisabledWhen, () => true))
  const listening = Effect.acquireRelease(
    Effect.async<ReturnType<typeof createServer>, { readonly code: string | undefined }>((resume) => {
      const made = createServer(handler)
      made.once("error", (e: NodeJS.ErrnoException) => resume(Effect.fail({ code: e.code })))
      made.listen(port, "127.0.0.1", () => {
        allowedHosts = loopbackHosts((made.address() as AddressInfo).port)
        resume(Effect.succeed(made))
      })
    }),
    (made) =>
      sessions.closeAll.pipe(
        Effect.zipRight(Effect.sync(() => made.closeAllConnections())),
        Effect.zipRight(Effect.async<void>((resume) => {
          made.close(() => resume(Effect.void))
        }))
      )
  )
  const server = yield* listening.pipe(Effect.catchAll((e) =>
    Effect.flatMap(
      Effect.promise(() => e.code === "EADDRINUSE" && port !== 0 ? askForLink(dataDir, port) : Promise.resolve(null)),
      (joined) =>
        joined === null
          ? Effect.fail(
            new CliFailure({
              message: `cannot listen on 127.0.0.1:${port} (${e.code ?? "error"}); try --port`,
              exitCode: 1
            })
          )
          : Effect.succeed({ joined })
    )
  ))
  if ("joined" in server) {
    yield* Console.error(
      `Relay Studio already runs on 127.0.0.1:${port}. Open this link once (it signs this browser in):`
    )
    return yield* Console.log(server.joined)
  }
  const actual = (server.address() as AddressInfo).port
  newLink = () => `http://127.0.0.1:${actual}${studioBase}/login?secret=${sessions.newLoginSecret()}`
  const published = yield* Effect.acquireRelease(
    Effect.sync(() => publishKey(dataDir, actual)),
    (p) => Effect.sync(() => p.remove())
  )
  key = published.key
  yield* Console.error(`Relay Studio on graph ${graph}, read-only. Open this link once (it signs this browser in):`)
  yield* Console.log(newLink())
  return yield* Effect.never
}).pipe(
  Effect.scoped,
  Effect.provide(relayStack(
    Layer.effect(
      Settings,
      Effect.map(Settings, (s) => ({ ...s, rateLimitPerMinute: Math.max(s.rateLimitPerMinute, studioRateLimit) }))
    ).pipe(Layer.provide(SettingsLive))
  ))
)

runCli(main)
