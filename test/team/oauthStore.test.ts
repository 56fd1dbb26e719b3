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
      expect(yield* store.peekCode(hashToken("k1"), "c1")).toBeNull()
      expect(yield* store.takeCode(hashToken("k1"), "c1")).toBeNull()
    }))

  it.effect("a full registry of approved clients makes room only from clients with no live chain", () =>
    Effect.gen(function*() {
      const store = yield* OAuthStore
      const limits = { maxClients: 2, idleMillis: 60_000 }
      const client = (clientId: string) => ({
        clientId,
        name: clientId,
        redirectUris: ["https://a.example/cb"],
        issuedAt: 0
      })
      const { record } = yield* (yield* TokenStore).create({ name: uniqueName("p"), workspace: "w", readOnly: false })
      const [one, two, three] = [uniqueName("one"), uniqueName("two"), uniqueName("three")]
      expect(yield* store.approveClient(client(one), limits)).not.toBeNull()
      // The same client approved again is kept once.
      expect(yield* store.approveClient(client(one), limits)).not.toBeNull()
      expect(yield* store.approveClient(client(two), limits)).not.toBeNull()
      expect(yield* store.approveClient(client(three), limits)).toBeNull()
      yield* store.saveTokens(
        {
          accessHash: hashToken(one),
          refreshHash: hashToken(`${one}-r`),
          accessExpiresAt: 1e15,
          refreshExpiresAt: 1e15
        },
        { clientId: one, resource, tokenId: record.id, family: "f-one" }
      )
      yield* TestClock.adjust(60_001)
      // `two` has no live chain and is past its time: it makes room; `one` is kept.
      expect(yield* store.approveClient(client(three), limits)).toMatchObject({ clientId: three })
      expect(yield* store.client(one)).toMatchObject({ redirectUris: ["https://a.example/cb"] })
      expect(yield* store.client(two)).toBeNull()
    }))

  it.effect("a refresh token of a revoked Relay token is refused, and peeking spends nothing", () =>
    Effect.gen(function*() {
      const store = yield* OAuthStore
      const tokens = yield* TokenStore
      const { record } = yield* tokens.create({ name: uniqueName("q"), workspace: "w", readOnly: false })
      const grant = { clientId: "c2", resource, tokenId: record.id, family: "f2" }
      yield* store.saveTokens(
        { accessHash: hashToken("a2"), refreshHash: hashToken("r2"), accessExpiresAt: 1e15, refreshExpiresAt: 1e15 },
        grant
      )
      expect(yield* store.peekRefresh(hashToken("r2"), "c2")).toMatchObject({ family: "f2" })
      expect(yield* store.peekRefresh(hashToken("r2"), "c2")).toMatchObject({ family: "f2" })
      yield* tokens.revoke(record.id)
      expect(yield* store.takeRefresh(hashToken("r2"), "c2")).toBeNull()
    }))
})
