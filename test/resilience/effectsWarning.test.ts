import { expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { inject } from "vitest"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { startServer } from "../support/falkordbServer.js"
import { liveLayerOn, testGraphName } from "../support/testLayer.js"
import { disposeServer } from "./privateDatabase.js"

/**
 * A FalkorDB that writes its append-only file and replicas as effects (its default) can replay a
 * fact without a property on 4.16 (layers/database/effectsReplication.ts): Relay says so once, on
 * stderr, and says nothing on a server set as Relay sets its own.
 */
const warningsOn = (target: { host: string; port: number; password: string }) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void lines.push(String(message))))
    yield* Effect.gen(function*() {
      const db = yield* GraphDatabase
      // Two statements at once: two connections, one warning.
      yield* Effect.all([db.read("RETURN 1", {}), db.read("RETURN 2", {})], { concurrency: 2 })
    }).pipe(Effect.provide(liveLayerOn(target, testGraphName("effects"))), Effect.provide(capture))
    return lines.filter((l) => l.includes("EFFECTS_THRESHOLD"))
  })

it.live("a server that replicates effects gets one warning naming the setting to change", () =>
  Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(
      Effect.promise(() => startServer({ effectsThreshold: 300 })),
      (s) => Effect.promise(() => disposeServer(s))
    )
    const warned = yield* warningsOn(server)
    expect(warned).toHaveLength(1)
    expect(warned[0]).toContain("GRAPH.CONFIG SET EFFECTS_THRESHOLD 1000000000")
  }).pipe(Effect.scoped), 30_000)

it.live("the tests' server, set as Relay sets its own, gets none", () =>
  Effect.map(warningsOn(inject("falkordb")), (warned) => expect(warned).toEqual([])))
