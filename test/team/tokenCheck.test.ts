import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Either, TestClock } from "effect"
import { makeTokenCheck } from "../../src/http/tokenCheck.js"
import { TokenStore } from "../../src/services/TokenStore.js"
import { uniqueName } from "../support/httpRelay.js"
import { dropGraphsAfterAll, teamTestLayer } from "../support/teamLayer.js"

/**
 * The HTTP token check's recheck window, on the real admin graph and Effect's TestClock: a token the
 * database accepted is believed for the window and no longer, so a token revoked while a session is
 * open stops within RELAY_HTTP_TOKEN_RECHECK_MS (the end-to-end test in auth.test.ts uses 0).
 */
const windowMillis = 5000

const tokenGraph = uniqueName("relay_tokens_check")
dropGraphsAfterAll(tokenGraph)
const tokenLayer = teamTestLayer(ConfigProvider.fromMap(new Map([["RELAY_TOKEN_GRAPH", tokenGraph]])))

const callerOf = (r: Either.Either<unknown, unknown>) => Either.getOrThrow(r)

layer(tokenLayer)("the token check's recheck window", (it) => {
  it.effect("believes an accepted token for the window, then sees its revocation", () =>
    Effect.gen(function*() {
      const tokens = yield* TokenStore
      const { record, token } = yield* tokens.create({ name: uniqueName("temp"), workspace: "acme", readOnly: false })
      const { check } = yield* makeTokenCheck(tokens.verify, windowMillis)
      expect(callerOf(yield* check(token))).toMatchObject({ tokenId: record.id, workspace: "acme" })
      yield* tokens.revoke(record.id)
      // Inside the window the database is not asked: still accepted (the price of no round trip).
      yield* TestClock.adjust(windowMillis - 1)
      expect(callerOf(yield* check(token))).toMatchObject({ tokenId: record.id })
      // At the window's end it is asked again, and from then on the token is refused.
      yield* TestClock.adjust(1)
      expect(callerOf(yield* check(token))).toBeNull()
      yield* TestClock.adjust(windowMillis * 10)
      expect(callerOf(yield* check(token))).toBeNull()
    }))

  it.effect("with a window of 0 asks the database on every request", () =>
    Effect.gen(function*() {
      const tokens = yield* TokenStore
      const { record, token } = yield* tokens.create({ name: uniqueName("temp"), workspace: "acme", readOnly: false })
      const { check } = yield* makeTokenCheck(tokens.verify, 0)
      expect(callerOf(yield* check(token))).toMatchObject({ tokenId: record.id })
      yield* tokens.revoke(record.id)
      expect(callerOf(yield* check(token))).toBeNull()
    }))

  it.effect("never believes a wrong token because a good one with the same id was accepted", () =>
    Effect.gen(function*() {
      const tokens = yield* TokenStore
      const { token } = yield* tokens.create({ name: uniqueName("temp"), workspace: "acme", readOnly: false })
      const { check } = yield* makeTokenCheck(tokens.verify, windowMillis)
      expect(callerOf(yield* check(token))).not.toBeNull()
      const forged = token.replace(/_[A-Za-z0-9_-]{43}$/, (s) => `_${s[1] === "A" ? "B" : "A"}${s.slice(2)}`)
      expect(forged).not.toBe(token)
      expect(callerOf(yield* check(forged))).toBeNull()
    }))

  it.effect("asks again about a refused token every time: a refusal is never remembered", () =>
    Effect.gen(function*() {
      const tokens = yield* TokenStore
      let asked = 0
      const counting = (presented: string) => Effect.suspend(() => (asked++, tokens.verify(presented)))
      const { check } = yield* makeTokenCheck(counting, windowMillis)
      const unknown = "relay_0123456789abcdef_" + "A".repeat(43)
      for (let i = 0; i < 3; i++) expect(callerOf(yield* check(unknown))).toBeNull()
      expect(asked).toBe(3)
      const { token } = yield* tokens.create({ name: uniqueName("temp"), workspace: "acme", readOnly: false })
      for (let i = 0; i < 3; i++) expect(callerOf(yield* check(token))).not.toBeNull()
      expect(asked).toBe(4)
    }))
})
