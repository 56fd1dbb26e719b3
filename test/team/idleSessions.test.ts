import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Logger, TestClock } from "effect"
import { serveHttp } from "../../src/http/serveHttp.js"
import { TokenStore } from "../../src/services/TokenStore.js"
import { connectHttp, initializeBody, rawPost, uniqueName } from "../support/httpRelay.js"
import { dropGraphsAfterAll, teamTestLayer } from "../support/teamLayer.js"

/**
 * RELAY_HTTP_SESSION_IDLE_MINUTES on Effect's TestClock: `serveHttp` in this process, its minute
 * sweep driven by the test, real HTTP requests and the real database. A session a client never
 * closed is closed once idle past the limit; a request keeps a session alive.
 */
const tokenGraph = uniqueName("relay_tokens_idle")
const workspace = uniqueName("idle")
const config = ConfigProvider.fromMap(
  new Map([
    ["RELAY_TOKEN_GRAPH", tokenGraph],
    ["RELAY_HTTP_PORT", "0"],
    ["RELAY_HTTP_SESSION_IDLE_MINUTES", "2"]
  ])
)
const team = teamTestLayer(config)

/** One turn of Node's event loop: lets a request, a listen or a woken fiber make progress (no time passes). */
const tick = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** Turns of the event loop until `done` holds; a bound, not a clock. */
const until = <A>(attempt: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500; i++) {
      const a = yield* attempt
      if (done(a)) return a
      yield* tick
    }
    return yield* Effect.dieMessage("the condition never held")
  })

dropGraphsAfterAll(tokenGraph, `relay_ws_${workspace}`)

layer(team)("HTTP sessions left open", (it) => {
  it.scoped("are closed after RELAY_HTTP_SESSION_IDLE_MINUTES without a request; one in use is kept", () =>
    Effect.gen(function*() {
      const { token } = yield* (yield* TokenStore).create({ name: uniqueName("idler"), workspace, readOnly: false })
      const lines: Array<string> = []
      const capture = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ message }) => void lines.push(String(message)))
      )
      const server = yield* Effect.forkScoped(serveHttp.pipe(
        Effect.scoped,
        Effect.withConfigProvider(config),
        Effect.provide(capture)
      ))
      const ready = yield* until(Effect.sync(() => lines.find((l) => l.includes("ready on"))), (l) => l !== undefined)
      const url = /ready on (\S+)/.exec(ready!)![1]!

      const [used, idle, edge] = yield* Effect.promise(() =>
        Promise.all([connectHttp(url, token), connectHttp(url, token), connectHttp(url, token)])
      )
      // Every request counts as use (it is how a client keeps its session), so each session is looked
      // at only where the answer is settled either way.
      const status = (session: typeof used) =>
        Effect.promise(() =>
          rawPost(url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, {
            authorization: `Bearer ${token}`,
            "mcp-session-id": session.transport.sessionId ?? "",
            "mcp-protocol-version": initializeBody.params.protocolVersion
          }).then((r) => r.status)
        )
      // TestClock.adjust gives the sweep it wakes a turn of the event loop; one more turn for its closes.
      const minute = TestClock.adjust("1 minute").pipe(Effect.zipRight(tick))

      // All three opened at 0. `used` gets a request at 1 and 2 minutes.
      yield* minute
      expect(yield* status(used), "used at 1 min").toBe(200)
      yield* minute
      expect(yield* status(used), "used at 2 min").toBe(200)
      // `edge` has gone exactly the 2 minutes: not past the limit, still open.
      expect(yield* status(edge), "edge at 2 min").toBe(200)
      // At 3 minutes `idle` has gone 3 minutes without a request: closed. The others were seen a minute ago.
      yield* minute
      expect(yield* status(idle), "idle at 3 min").toBe(404)
      expect(yield* status(used), "used at 3 min").toBe(200)
      expect(yield* status(edge), "edge at 3 min").toBe(200)
      // Then 3 minutes with no request at all: both go.
      for (let i = 0; i < 3; i++) yield* minute
      expect(yield* status(used), "used at 6 min").toBe(404)
      expect(yield* status(edge), "edge at 6 min").toBe(404)

      yield* Effect.promise(() => Promise.all([used.close(), idle.close(), edge.close()]))
      yield* Fiber.interrupt(server)
    }))
})
