import { Path, PlatformConfigProvider } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Config, ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import { packageDir } from "../../packageDir.js"
import { type DatabaseTarget, Settings } from "../../services/Settings.js"
import { clusterNodesConfig } from "../database/clusterConfig.js"
import { sentinelConfig } from "../database/SentinelEndpoint.js"
import { positiveSetting } from "./positiveSetting.js"

const graphName = Config.string("RELAY_GRAPH").pipe(
  Config.withDefault("relay"),
  Config.validate({
    message: "RELAY_GRAPH must be 1-64 letters, digits, '_' or '-'",
    validation: (s) => /^[A-Za-z0-9_-]{1,64}$/.test(s)
  })
)

const rateLimit = positiveSetting("RELAY_RATE_LIMIT", 120)

/** Where the database is, by address (the password is read once, in `settingsFrom`). */
const databaseAddress = Config.all({
  url: Config.option(Config.redacted("FALKORDB_URL")),
  host: Config.option(Config.string("FALKORDB_HOST")),
  port: Config.option(Config.port("FALKORDB_PORT"))
})

const targetOf = (
  { host, port, url }: Config.Config.Success<typeof databaseAddress>,
  password: Redacted.Redacted<string> | null
): DatabaseTarget => {
  if (Option.isSome(url) && Redacted.value(url.value).trim() !== "") return { _tag: "Url", url: url.value }
  if (Option.isSome(host) || Option.isSome(port)) {
    return {
      _tag: "HostPort",
      host: Option.getOrElse(host, () => "127.0.0.1"),
      port: Option.getOrElse(port, () => 6379),
      password
    }
  }
  return { _tag: "Embedded" }
}

/** The environment first, then `.env` beside the package (none: the environment alone). */
const withDotEnv = (env: ConfigProvider.ConfigProvider, file: ConfigProvider.ConfigProvider) =>
  env.pipe(ConfigProvider.orElse(() => file))

/**
 * Reads `.env` once and makes "the environment, then .env" the provider of every setting read after
 * (Settings here, and the few a layer reads itself: RELAY_DATA_DIR, RELAY_MIN_REPLICAS, sentinels).
 */
export const configFrom = (dotEnvFile: string) =>
  Layer.unwrapEffect(
    PlatformConfigProvider.fromDotEnv(dotEnvFile).pipe(
      Effect.orElseSucceed(() => ConfigProvider.fromMap(new Map())),
      Effect.map((file) => Layer.setConfigProvider(withDotEnv(ConfigProvider.fromEnv(), file)))
    )
  ).pipe(Layer.provide(NodeContext.layer))

/** The same with the `.env` beside the package. */
export const ConfigLive = Layer.unwrapEffect(Effect.gen(function*() {
  const path = yield* Path.Path
  return configFrom(path.join(packageDir, ".env"))
})).pipe(Layer.provide(NodeContext.layer))

const settings = Config.all({ graph: graphName, rateLimitPerMinute: rateLimit })

/** Whether a provider names a database (FALKORDB_URL, FALKORDB_HOST or FALKORDB_PORT). */
const namesDatabase = Config.all([
  Config.option(Config.string("FALKORDB_URL")),
  Config.option(Config.string("FALKORDB_HOST")),
  Config.option(Config.string("FALKORDB_PORT"))
]).pipe(Config.map((keys) => keys.some((k) => Option.isSome(k) && k.value.trim() !== "")))

/** The only place FALKORDB_PASSWORD is read: the servers' password, whichever way they are reached. */
const databasePassword = Config.option(Config.redacted("FALKORDB_PASSWORD"))

/**
 * Relay's settings, read through the current provider (the environment, then .env). Each setting is
 * the environment's if it has one; for the database the environment wins as a whole: where it names
 * a database, that is the database (only its password may still come from .env), so a FALKORDB_URL
 * in .env never overrides a FALKORDB_HOST in the environment. FALKORDB_SENTINELS, when set, wins
 * over both, and FALKORDB_CLUSTER_NODES over all.
 */
const settingsFrom = Effect.fn("relay/settings/read")(function*(env: ConfigProvider.ConfigProvider) {
  const read = yield* settings
  const password = Option.getOrNull(yield* databasePassword)
  const sentinels = yield* sentinelConfig
  const clusterNodes = yield* clusterNodesConfig
  const envOnly = yield* Effect.withConfigProvider(namesDatabase, env)
  const address = yield* envOnly ? Effect.withConfigProvider(databaseAddress, env) : databaseAddress
  const database: DatabaseTarget = clusterNodes.length > 0
    ? { _tag: "Cluster", nodes: clusterNodes, password }
    : sentinels.sentinels.length > 0
    ? { _tag: "Sentinel", ...sentinels, password }
    : targetOf(address, password)
  if (database._tag === "Embedded" && password !== null) {
    yield* Effect.logWarning(
      "FALKORDB_PASSWORD is set without FALKORDB_HOST, FALKORDB_PORT, FALKORDB_URL, FALKORDB_SENTINELS or FALKORDB_CLUSTER_NODES: " +
        "it is ignored, and Relay uses its embedded server"
    )
  }
  return { ...read, database }
})

/** Settings as read from `env` (the environment) and `file` (.env). */
export const readSettings = (env: ConfigProvider.ConfigProvider, file: ConfigProvider.ConfigProvider) =>
  Effect.withConfigProvider(settingsFrom(env), withDotEnv(env, file))

/** Settings read through the current provider (set by ConfigLive, or by a test). */
export const SettingsFromConfig = Layer.effect(Settings, settingsFrom(ConfigProvider.fromEnv()))

/** Relay's settings from the environment and .env, which stay the provider of every later setting. */
export const SettingsLive = SettingsFromConfig.pipe(Layer.provideMerge(ConfigLive))
