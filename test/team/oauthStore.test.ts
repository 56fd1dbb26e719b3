import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, TestClock } from "effect"
import { hashToken } from "../../src/domain/tokens.js"
import { OAuthStore } from "../../src/services/OAuthStore.js"
import { TokenStore } from "../../src/services/TokenStore.js"
import { uniqueName } from "../support/httpRelay.js"
import { dropGraphsAfterAll, teamTestLayer } from "../support/teamLayer.js"

/**
 * The OAuth store's clock-bound rules on the real admin graph and Effect's TestClock: an access
 * token stops at its expiry, a code at its own, and registrations nobody approved expire to make
 * room under the cap. (The end-to-end flow is test/team/oauth.test.ts.)
 */
const tokenGraph = uniqueName("relay_tokens_oauthstore")
dropGraphsAfterAll(tokenGraph)
const team = teamTestLayer(ConfigProvider.fromMap(new Map([["RELAY_TOKEN_GRAPH", tokenGraph]])))
const resource = "https://relay.example.com/mcp"

layer(team)("the OAuth store on the clock", (it) => {
  it.effect("an access token is good until its expiry and not a millisecond after; a code likewise", () =>
    Effect.gen(function*() {
      const store = yield* OAuthStore
      const { record } = yield* (yield* TokenStore).create({ name: uniqueName("p"), workspace: "w", readOnly: true })
      const grant = { clientId: "c1", resource, tokenId: record.id, family: "f1" }
      yield* store.saveTokens(
        { accessHash: hashToken("a1"), refreshHash: hashToken("r1"), accessExpiresAt: 1000, refreshExpiresAt: 5000 },
        grant
      )
      expect(yield* store.access(hashToken("a1"))).toMatchObject({ resource, caller: { readOnly: true } })
      yield* TestClock.adjust(999)
      expect(yield* store.access(hashToken("a1"))).not.toBeNull()
      yield* TestClock.adjust(1)
      expect(yield* store.access(hashToken("a1"))).toBeNull()
      // The refresh token outlives it, once.
      expect(yield* store.takeRefresh(hashToken("r1"), "c1")).toMatchObject({ family: "f1" })
      expect(yield* store.takeRefresh(hashToken("r1"), "c1")).toBeNull()

      const code = { clientId: "c1", redirectUri: "https://a.example/cb", challenge: "x", resource, tokenId: record.id }
      yield* store.saveCode(hashToken("k1"), code, 2000)
      yield* TestClock.adjust(1000)
      expect(yield* store.codeChallenge(hashToken("k1"), "c1")).toBeNull()
      expect(yield* store.takeCode(hashToken("k1"), "c1")).toBeNull()
    }))

  it.effect("a full registry takes no more, until unused registrations pass their time", () =>
    Effect.gen(function*() {
      const store = yield* OAuthStore
      const limits = { maxClients: 2, unusedTtlMillis: 60_000 }
      const one = { clientId: "", name: "one", redirectUris: ["https://a.example/cb"] }
      expect(yield* store.register(one, limits)).not.toBeNull()
      expect(yield* store.register(one, limits)).not.toBeNull()
      expect(yield* store.register(one, limits)).toBeNull()
      yield* TestClock.adjust(60_001)
      const again = yield* store.register(one, limits)
      expect(again?.clientId).toMatch(/^[0-9a-f]{32}$/)
      expect(yield* store.client(again!.clientId)).toMatchObject({
        name: "one",
        redirectUris: ["https://a.example/cb"]
      })
    }))
})
