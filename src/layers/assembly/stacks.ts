import { Effect, Layer } from "effect"
import { Database, GraphDatabase, type GraphDatabaseShape } from "../../services/GraphDatabase.js"
import { RateLimiter } from "../../services/RateLimiter.js"
import { SecretScanner } from "../../services/SecretScanner.js"
import { Settings } from "../../services/Settings.js"
import { DatabaseEndpointLive } from "../database/DatabaseEndpointLive.js"
import { FalkorDbLive } from "../database/FalkorDbLive.js"
import { EmbeddedServerLive } from "../embedded/EmbeddedServerLive.js"
import { FactStoreLive } from "../factStore/FactStoreLive.js"
import { StoreCheckLive } from "../factStore/StoreCheckLive.js"
import { TaskStoreLive } from "../tasks/TaskStoreLive.js"
import { OAuthStoreLive } from "../tokens/OAuthStoreLive.js"
import { TokenStoreLive } from "../tokens/TokenStoreLive.js"
import { TransferLive } from "../transfer/TransferLive.js"
import { WorkspaceStoresLive } from "./WorkspaceStores.js"

/*
 * Every stack Relay runs on is built here and nowhere else: an entry point (the stdio and HTTP
 * servers, each CLI, the tests' layers, the benchmarks) picks its stack once and gives it the
 * settings (SettingsLive, or a test's). All share one base: the settings, the embedded server
 * (started only when the settings name no database; its layout is where a CLI finds the data dir),
 * the database endpoint, and the pool of connections every graph of the process shares.
 */

const database = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  FalkorDbLive.pipe(
    Layer.provideMerge(DatabaseEndpointLive),
    Layer.provideMerge(EmbeddedServerLive),
    Layer.provideMerge(settings)
  )

/** One graph of the database: `graph`, or the settings' (RELAY_GRAPH). */
const graphOf = (graph: string | undefined, wrap: (db: GraphDatabaseShape) => GraphDatabaseShape) =>
  Layer.effect(
    GraphDatabase,
    Effect.map(
      Effect.all([Database, Settings]),
      ([database, settings]) => wrap(database.graph(graph ?? settings.graph))
    )
  )

/**
 * The settings and the embedded server of their data dir, no database opened (`npm run db`; a CLI that
 * says which database it will use before it opens one). Building it starts nothing.
 */
export const embeddedStack = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  EmbeddedServerLive.pipe(Layer.provideMerge(settings))

/** One graph of the settings' database (check-db; the demo's own graph). */
export const graphStack = <E, R>(settings: Layer.Layer<Settings, E, R>, graph?: string) =>
  graphOf(graph, (db) => db).pipe(Layer.provideMerge(database(settings)))

/** check-db's: the graph and the check of what its writes stored (StoreCheck). */
export const checkStack = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  StoreCheckLive.pipe(Layer.provideMerge(graphStack(settings)))

/** The token store of the admin graph (`npm run token`). */
export const tokenStack = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  TokenStoreLive.pipe(Layer.provideMerge(database(settings)))

/**
 * What a tool call needs (the stdio server, seed, export and import, tests, benchmarks): the
 * FactStore, TaskStore and Transfer of `graph` (else the settings' graph) and its GraphDatabase (for diagnostics, and for
 * tests that drop their graph), the rate limiter, the secret scanner and the call budget. `wrap`
 * may wrap the graph under the FactStore (a benchmark records what it sends, a test counts it).
 */
export const relayStack = <E, R>(
  settings: Layer.Layer<Settings, E, R>,
  options: {
    readonly graph?: string | undefined
    readonly wrap?: (db: GraphDatabaseShape) => GraphDatabaseShape
  } = {}
) =>
  Layer.mergeAll(FactStoreLive, TaskStoreLive, RateLimiter.Default).pipe(
    // Export and import (cli/export.ts, import.ts) scan with the stack's one scanner.
    Layer.merge(TransferLive),
    Layer.provideMerge(SecretScanner.Default),
    Layer.provideMerge(graphOf(options.graph, options.wrap ?? ((db) => db))),
    Layer.provideMerge(database(settings))
  )

/**
 * What `relay --http` needs: the tokens (and OAuth's grants beside them), one FactStore per workspace (each on its own graph, all on
 * the one pool of connections), the secret scanner and the call budget.
 */
export const teamStack = <E, R>(settings: Layer.Layer<Settings, E, R>) =>
  Layer.mergeAll(TokenStoreLive, OAuthStoreLive, WorkspaceStoresLive, SecretScanner.Default).pipe(
    Layer.provideMerge(database(settings))
  )
