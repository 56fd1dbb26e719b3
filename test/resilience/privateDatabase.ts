import { NodeContext } from "@effect/platform-node"
import { Context, Effect, Layer, Redacted } from "effect"
import { rmSync } from "node:fs"
import { DatabaseEndpointLive } from "../../src/layers/DatabaseEndpoint.js"
import { FactStoreLive } from "../../src/layers/FactStoreLive.js"
import { FalkorDbLive } from "../../src/layers/FalkorDbLive.js"
import { makeRateLimiter } from "../../src/layers/RateLimiterLive.js"
import { SecretScannerLive } from "../../src/layers/SecretScannerLive.js"
import { RateLimiter } from "../../src/services/RateLimiter.js"
import { Settings } from "../../src/services/Settings.js"
import { type RunningServer, startServer } from "../support/falkordbServer.js"

/** A FalkorDB of this test file's own, to kill, pause and restart under the code. */
export class PrivateServer extends Context.Tag("test/PrivateServer")<PrivateServer, RunningServer>() {}

/** Resumes a paused server, stops it and removes its data. */
export const disposeServer = async (server: RunningServer) => {
  const pid = server.process.pid
  if (pid !== undefined && server.process.exitCode === null && server.process.signalCode === null) {
    try {
      process.kill(pid, "SIGCONT")
    } catch {
      // already gone
    }
  }
  await server.stop()
  rmSync(server.dir, { recursive: true, force: true })
}

const privateServer = Layer.scoped(
  PrivateServer,
  Effect.acquireRelease(
    Effect.promise(() => startServer({ persist: true })),
    (server) => Effect.promise(() => disposeServer(server))
  )
)

const settings = Layer.effect(
  Settings,
  Effect.map(PrivateServer, (server) => ({
    database: { _tag: "HostPort" as const, host: server.host, port: server.port, password: Redacted.make(server.password) },
    graph: "relay",
    rateLimitPerMinute: 100_000
  }))
)

/** The live stack (FactStore, GraphDatabase, scanner, a generous limiter) on a private server. */
export const privateDatabaseLayer = Layer.mergeAll(
  FactStoreLive.pipe(Layer.provideMerge(FalkorDbLive), Layer.provide(DatabaseEndpointLive)),
  Layer.effect(RateLimiter, makeRateLimiter(100_000)),
  SecretScannerLive
).pipe(
  Layer.provideMerge(settings),
  Layer.provideMerge(privateServer),
  Layer.provideMerge(NodeContext.layer)
)
