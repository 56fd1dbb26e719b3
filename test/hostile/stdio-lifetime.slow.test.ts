import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Schema, Scope } from "effect"
import { FalkorDB } from "falkordb"
import { inject } from "vitest"
import { graphStack } from "../../src/layers/assembly/stacks.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { disposeServer } from "../resilience/privateDatabase.js"
import { type RunningServer, startServer } from "../support/falkordbServer.js"
import { connectAdmin } from "../support/proof.js"
import { settingsOn, testGraphName } from "../support/testLayer.js"
import { type RawRelay, spawnRelay } from "./stdioProcess.js"

/** The contract's bound for a client that went away; most of it is the start of `node` itself on a busy machine. */
const exitBound = 3_000

const save = (id: number, content: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "relay_save_fact", arguments: { content, written_by: "vanishing", session_id: "gone" } }
})

/** The other clients of a server, besides the connection asking. */
const otherClients = async (server: RunningServer) => {
  const db = await FalkorDB.connect({ socket: { host: server.host, port: server.port }, password: server.password })
  db.on("error", () => {})
  try {
    const client = await db.connection
    const list = String(await client.sendCommand(["CLIENT", "LIST"]))
    return list.split("\n").filter((line) => line.trim() !== "").length - 1
  } finally {
    await db.close()
  }
}

describe("the client goes away", () => {
  let relay: RawRelay | undefined
  afterEach(() => {
    relay?.child.kill("SIGKILL")
    relay = undefined
  })

  it("while Relay is idle: it exits at once, cleanly", async () => {
    relay = spawnRelay(inject("falkordb"), testGraphName("idle-exit"))
    await relay.initialize()
    relay.send(save(1, "before the client leaves"))
    expect((await relay.reply(1)).result?.isError).toBeFalsy()
    relay.child.stdin.end()
    const exit = await relay.exited(exitBound)
    expect(exit.code).toBe(0)
    expect(relay.stderr()).not.toMatch(/level=(ERROR|WARN)|fatal/)
  })

  describe("with a call in flight on a paused database", () => {
    let server: RunningServer
    beforeAll(async () => {
      server = await startServer()
    })
    afterAll(async () => {
      await disposeServer(server)
    })

    const pausedMidCall = async (graph: string) => {
      const r = spawnRelay(server, testGraphName(graph))
      relay = r
      await r.initialize()
      r.send(save(1, "the connection is warm"))
      expect((await r.reply(1)).result?.isError).toBeFalsy()
      process.kill(server.process.pid!, "SIGSTOP")
      r.send(save(2, "this one never gets an answer"))
      // Answered after the save was read and started: the save is now waiting on the paused server.
      r.send({ jsonrpc: "2.0", id: 3, method: "tools/list" })
      await r.reply(3)
      return r
    }

    it("stdin closed: Relay exits within 3 s and holds no connection once the database resumes", async () => {
      const r = await pausedMidCall("orphan-stdin")
      try {
        r.child.stdin.end()
        const exit = await r.exited(exitBound)
        console.log(`stdin closed mid-call: exited after ${exit.afterMs} ms (code ${exit.code})`)
        expect(exit.code).toBe(0)
        // the call never got an answer: the client is gone
        expect(r.messages().find((m) => m.id === 2)).toBeUndefined()
      } finally {
        process.kill(server.process.pid!, "SIGCONT")
      }
      expect(await otherClients(server)).toBe(0)
    })

    it("client killed (all pipes gone): Relay exits within 3 s", async () => {
      const r = await pausedMidCall("orphan-killed")
      try {
        r.child.stdout.destroy()
        r.child.stderr.destroy()
        r.child.stdin.destroy()
        const exit = await r.exited(exitBound)
        console.log(`client killed mid-call: exited after ${exit.afterMs} ms (code ${exit.code})`)
      } finally {
        process.kill(server.process.pid!, "SIGCONT")
      }
      expect(await otherClients(server)).toBe(0)
    })
  })
})

describe("the connection layer once its scope has closed", () => {
  it.effect("opens no connection: a late query fails, not transient, and the server sees no new client", () =>
    Effect.gen(function*() {
      const target = inject("falkordb")
      const admin = yield* Effect.acquireRelease(
        Effect.promise(() => connectAdmin(target)),
        (a) => Effect.promise(a.close)
      )
      const layer = graphStack(settingsOn(target, testGraphName("shut")))
      const scope = yield* Scope.make()
      const db = Context.get(yield* Layer.buildWithScope(layer, scope), GraphDatabase)
      expect(yield* db.read("RETURN 1 AS one", {}, Schema.Struct({ one: Schema.Number }))).toEqual([{ one: 1 }])
      yield* Scope.close(scope, Exit.void)

      const before = yield* Effect.promise(admin.totalConnections)
      // As a call's retry would, right after the finalizer dropped its connection.
      const late = yield* Effect.flip(db.read("RETURN 1 AS one"))
      expect(late.transient).toBe(false)
      expect(yield* Effect.promise(admin.totalConnections)).toBe(before)
    }).pipe(Effect.scoped))
})
