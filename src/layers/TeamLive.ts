import { Layer } from "effect"
import { DatabaseEndpoint } from "../services/DatabaseEndpoint.js"
import { SecretScanner } from "../services/SecretScanner.js"
import { TokenStore } from "../services/TokenStore.js"
import { SettingsLive } from "./SettingsLive.js"

/**
 * What `relay --http` needs: the tokens, the secret scanner, and the database endpoint each
 * workspace's FactStore is built on (per session, in serveHttp), on the same settings as stdio.
 */
export const TeamLive = Layer.mergeAll(TokenStore.Default, SecretScanner.Default, DatabaseEndpoint.Default).pipe(
  Layer.provideMerge(SettingsLive)
)
