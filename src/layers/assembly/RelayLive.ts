import { Layer } from "effect"
import { CallWatchdog } from "../../services/CallWatchdog.js"
import { FactStore } from "../../services/FactStore.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { RateLimiter } from "../../services/RateLimiter.js"
import { SecretScanner } from "../../services/SecretScanner.js"
import type { Settings } from "../../services/Settings.js"
import { GraphDatabaseLive } from "../database/GraphDatabaseLive.js"
import { SettingsLive } from "./SettingsLive.js"

/**
 * Relay's services on the given settings: the one way a stack is assembled (the server, the CLIs,
 * the tests on their own graph, the benchmarks). GraphDatabase is the very connection FactStore
 * uses, exposed for diagnostics and for tests that drop their graph; a benchmark may pass its own
 * (one that records what FactStore sends).
 */
export const relayLayerWith = <E, R, E2, R2>(
  settings: Layer.Layer<Settings, E, R>,
  database: Layer.Layer<GraphDatabase, E2, R2 | Settings>
) =>
  Layer.mergeAll(
    FactStore.DefaultWithoutDependencies,
    RateLimiter.Default,
    SecretScanner.Default,
    CallWatchdog.Default
  ).pipe(
    Layer.provideMerge(database),
    Layer.provideMerge(settings)
  )

/** The stack on the given settings, connected as they say. */
export const relayLayer = <E, R>(settings: Layer.Layer<Settings, E, R>) => relayLayerWith(settings, GraphDatabaseLive)

/** Everything a tool call needs, on settings read from the environment and .env. */
export const RelayLive = relayLayer(SettingsLive)
