import { NodeContext } from "@effect/platform-node"
import { Layer } from "effect"
import { FactStoreLive } from "./FactStoreLive.js"
import { FalkorDbLive } from "./FalkorDbLive.js"
import { RateLimiterLive } from "./RateLimiterLive.js"
import { SecretScannerLive } from "./SecretScannerLive.js"
import { DatabaseEndpointFromSettings } from "./SentinelEndpoint.js"
import { SettingsLive } from "./SettingsLive.js"

/** The database stack on given settings: endpoint → connection → FactStore. */
export const databaseLayer = FactStoreLive.pipe(
  Layer.provideMerge(FalkorDbLive),
  Layer.provide(DatabaseEndpointFromSettings)
)

/** Everything a tool call needs, on settings read from the environment and .env. */
export const RelayLive = Layer.mergeAll(databaseLayer, RateLimiterLive, SecretScannerLive).pipe(
  Layer.provideMerge(SettingsLive),
  Layer.provide(NodeContext.layer)
)
