import { Effect, Layer } from "effect"
import { CallWatchdog } from "../../services/CallWatchdog.js"
import { GraphDatabase } from "../../services/GraphDatabase.js"
import { RateLimiter } from "../../services/RateLimiter.js"
import { SecretScanner } from "../../services/SecretScanner.js"
import type { Settings } from "../../services/Settings.js"
import { DatabaseEndpointLive } from "../database/DatabaseEndpointLive.js"
import { FalkorDbLive } from "../database/FalkorDbLive.js"
import { EmbeddedServerLive } from "../embedded/EmbeddedServerLive.js"
import { FactStoreLive } from "../factStore/FactStoreLive.js"
import { TaskStoreLive } from "../tasks/TaskStoreLive.js"
import { OAuthStoreLive } from "../tokens/OAuthStoreLive.js"
import { TokenStoreLive } from "../tokens/TokenStoreLive.js"
import { WorkspaceStoresLive } from "./WorkspaceStores.js"

/*
 * Every stack Relay runs on is built here and nowhere else: an entry point (the stdio and HTTP
 * servers, each CLI, the tests' layers, the benchmarks) picks its stack once and gives it the
 * settings (SettingsLive, or a test's). All share one base: the settings, the embedded server
 * (started only when the settings name no database) and the database endpoint.
 */

const base = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  DatabaseEndpointLive.pipe(Layer.provide(EmbeddedServerLive), Layer.provideMerge(settings))

/** The embedded server alone (`npm run db`): no setting but RELAY_DATA_DIR, read through `config`. */
export const embeddedStack = <E, R>(config: Layer.Layer<never, E, R>) => EmbeddedServerLive.pipe(Layer.provide(config))

/** The connection to the settings' graph (check-db, the demo's own graph). */
export const graphStack = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  FalkorDbLive.pipe(Layer.provideMerge(base(settings)))

/** The token store of the admin graph (`npm run token`). */
export const tokenStack = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  TokenStoreLive.pipe(Layer.provideMerge(base(settings)))

/**
 * What a tool call needs (the stdio server, seed, tests, benchmarks): the FactStore and TaskStore of
 * the settings' graph and its GraphDatabase (for diagnostics, and for tests that drop their graph), the rate
 * limiter, the secret scanner and the call budget. `wrap` may wrap the connection under the
 * FactStore (a benchmark records what it sends, a test counts it).
 */
export const relayStack = <E, R>(
  settings: Layer.Layer<Settings, E, R>,
  wrap: (database: GraphDatabase["Type"]) => GraphDatabase["Type"] = (database) => database
) =>
  Layer.mergeAll(FactStoreLive, TaskStoreLive, RateLimiter.Default, SecretScanner.Default, CallWatchdog.Default).pipe(
    Layer.provideMerge(Layer.effect(GraphDatabase, Effect.map(GraphDatabase, wrap)).pipe(Layer.provide(FalkorDbLive))),
    Layer.provideMerge(base(settings))
  )

/**
 * What `relay --http` needs: the tokens (and OAuth's grants beside them), one FactStore per workspace (built per session), the secret
 * scanner and the call budget.
 */
export const teamStack = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  Layer.mergeAll(TokenStoreLive, OAuthStoreLive, WorkspaceStoresLive, SecretScanner.Default, CallWatchdog.Default).pipe(
    Layer.provideMerge(base(settings))
  )
