import { Layer } from "effect"
import { CallWatchdog } from "../../services/CallWatchdog.js"
import { DatabaseEndpoint } from "../../services/DatabaseEndpoint.js"
import { SecretScanner } from "../../services/SecretScanner.js"
import { TokenStore } from "../../services/TokenStore.js"
import { SettingsLive } from "./SettingsLive.js"

/**
 * What `relay --http` needs, on whatever settings are given: the tokens, the secret scanner, the
 * calls' watchdog, and the database endpoint each workspace's FactStore is built on (per session,
 * in serveHttp).
 */
export const TeamServices = Layer.mergeAll(
  TokenStore.Default,
  SecretScanner.Default,
  DatabaseEndpoint.Default,
  CallWatchdog.Default
)

/** TeamServices on the same settings as stdio. */
export const TeamLive = TeamServices.pipe(Layer.provideMerge(SettingsLive))
