import { Effect, Layer, Redacted, TestContext } from "effect"
import { randomBytes } from "node:crypto"
import { inject } from "vitest"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { Settings } from "../../src/services/Settings.js"

/** A graph name no other run uses. */
export const testGraphName = (label: string) => `relay_test_${label}_${randomBytes(4).toString("hex")}`

/** A FalkorDB to point the layers at: the run's (inject("falkordb")) or a private one. */
export interface Target {
  readonly host: string
  readonly port: number
  readonly password: string
}

export const settingsOn = (target: Target, graph: string, rateLimitPerMinute = 100_000) =>
  Layer.succeed(Settings, {
    database: { _tag: "HostPort", host: target.host, port: target.port, password: Redacted.make(target.password) },
    graph,
    rateLimitPerMinute
  })

export const testSettings = (graph: string, rateLimitPerMinute = 100_000) =>
  settingsOn(inject("falkordb"), graph, rateLimitPerMinute)

/** Drops the graph when the layer is released, so a run leaves nothing behind. */
const dropOnRelease = Layer.scopedDiscard(
  Effect.flatMap(GraphDatabase, (db) => Effect.addFinalizer(() => Effect.ignore(db.dropGraph)))
)

/**
 * Relay's stack (relayStack: FactStore, GraphDatabase, the secret scanner and a rate limiter,
 * generous unless given) on a graph of the given server, dropped when the layer is released.
 */
export const liveLayerOn = (target: Target, graph: string, rateLimitPerMinute = 100_000) =>
  droppedOnRelease(relayStack(settingsOn(target, graph, rateLimitPerMinute)))

/** A stack whose graph is dropped when the layer is released. */
export const droppedOnRelease = <ROut, E, R>(stack: Layer.Layer<ROut, E, R>) =>
  Layer.merge(stack, dropOnRelease.pipe(Layer.provide(stack)))

/** The live stack on a fresh graph of the real FalkorDB this run started. */
export const relayTestLayer = (label: string, options: { rateLimitPerMinute?: number } = {}) =>
  liveLayerOn(inject("falkordb"), testGraphName(label), options.rateLimitPerMinute)

/**
 * Runs `self` on a TestClock of its own. Inside `layer()` every test and every property run of a
 * file share one TestClock, which keeps the sleep of every statement timeout ever started (an
 * interrupted sleep is not removed) and sorts them all at each adjust or setTime: over a property's
 * hundred thousand statements that cost more CPU than the statements. Give each run its own.
 */
export const onFreshTestClock = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, TestContext.TestContext)
