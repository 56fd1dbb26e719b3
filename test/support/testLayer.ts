import { NodeContext } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { inject } from "vitest"
import { DatabaseEndpointLive } from "../../src/layers/DatabaseEndpoint.js"
import { FactStoreLive } from "../../src/layers/FactStoreLive.js"
import { FalkorDbLive } from "../../src/layers/FalkorDbLive.js"
import { makeRateLimiter } from "../../src/layers/RateLimiterLive.js"
import { SecretScannerLive } from "../../src/layers/SecretScannerLive.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { RateLimiter } from "../../src/services/RateLimiter.js"
import { Settings } from "../../src/services/Settings.js"

/** A graph name no other run uses. */
export const testGraphName = (label: string) => `relay_test_${label}_${randomBytes(4).toString("hex")}`

export const testSettings = (graph: string, rateLimitPerMinute = 100_000) => {
  const { host, password, port } = inject("falkordb")
  return Layer.succeed(Settings, {
    database: { _tag: "HostPort", host, port, password: Redacted.make(password) },
    graph,
    rateLimitPerMinute
  })
}

/** Drops the graph when the layer is released, so a run leaves nothing behind. */
const dropOnRelease = Layer.scopedDiscard(
  Effect.flatMap(GraphDatabase, (db) => Effect.addFinalizer(() => Effect.ignore(db.dropGraph)))
)

/**
 * The live database stack pointed at a fresh graph of the real FalkorDB this run started:
 * FactStore, GraphDatabase, the secret scanner and a rate limiter (generous unless given).
 */
export const relayTestLayer = (label: string, options: { rateLimitPerMinute?: number } = {}) => {
  const settings = testSettings(testGraphName(label), options.rateLimitPerMinute)
  const database = FactStoreLive.pipe(
    Layer.provideMerge(dropOnRelease),
    Layer.provideMerge(FalkorDbLive),
    Layer.provide(DatabaseEndpointLive)
  )
  const limiter = Layer.effect(RateLimiter, makeRateLimiter(options.rateLimitPerMinute ?? 100_000))
  return Layer.mergeAll(database, limiter, SecretScannerLive).pipe(
    Layer.provideMerge(settings),
    Layer.provideMerge(NodeContext.layer)
  )
}
