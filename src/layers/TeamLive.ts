import { NodeContext } from "@effect/platform-node"
import { Layer } from "effect"
import { SecretScannerLive } from "./SecretScannerLive.js"
import { DatabaseEndpointFromSettings } from "./SentinelEndpoint.js"
import { SettingsLive } from "./SettingsLive.js"
import { TokenStoreLive } from "./TokenStoreLive.js"

/**
 * What `relay --http` needs: the tokens, the secret scanner, and the database endpoint each
 * workspace's FactStore is built on (per session, in serveHttp), on the same settings as stdio.
 */
export const TeamLive = Layer.mergeAll(TokenStoreLive, SecretScannerLive).pipe(
  Layer.provideMerge(DatabaseEndpointFromSettings),
  Layer.provideMerge(SettingsLive),
  Layer.provide(NodeContext.layer)
)
