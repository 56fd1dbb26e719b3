import { Effect, Option } from "effect"
import type { BlockList } from "node:net"
import { OAuthStore } from "../../services/OAuthStore.js"
import { TokenStore } from "../../services/TokenStore.js"
import { makeOAuthEdge } from "./oauthEdge.js"
import { readOAuthSettings } from "./OAuthSettings.js"
import type { RunStore } from "./provider.js"

/** The OAuth edge when RELAY_PUBLIC_URL is set, else none (static bearer tokens only). */
export const makeOAuthIfSet = (run: RunStore, proxies: BlockList) =>
  Effect.gen(function*() {
    const settings = yield* readOAuthSettings
    if (Option.isNone(settings.publicUrl)) return Option.none()
    const publicUrl = settings.publicUrl.value
    const edge = makeOAuthEdge({
      publicUrl,
      settings,
      store: yield* OAuthStore,
      tokens: yield* TokenStore,
      run,
      proxies
    })
    return Option.some({ ...edge, publicHost: publicUrl.host, publicUrl })
  })
