import { Context, Effect, Layer } from "effect"
import { rmSync } from "node:fs"
import { type RunningServer, startServer } from "../support/falkordbServer.js"
import { liveLayerOn } from "../support/testLayer.js"

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

/** The live stack (FactStore, GraphDatabase, scanner, a generous limiter) on a private server. */
export const privateDatabaseLayer = Layer.unwrapEffect(
  Effect.map(PrivateServer, (server) => liveLayerOn(server, "relay"))
).pipe(Layer.provideMerge(privateServer))
