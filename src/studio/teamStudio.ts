import { Context, Effect, Either, Exit, Runtime, Scope } from "effect"
import type { ToolError } from "../domain/errors.js"
import type { Caller } from "../domain/tokens.js"
import { makeRateLimiter, RateLimiter } from "../services/RateLimiter.js"
import type { SecretScanner } from "../services/SecretScanner.js"
import { Settings } from "../services/Settings.js"
import { WorkspaceStores } from "../services/WorkspaceStores.js"
import { studioApp } from "./studioServer.js"
import { makeStudioSessions, StudioUnavailable, type StudioWorkspace } from "./studioSessions.js"

/**
 * The studio in team mode (`relay --http`, at /studio): a person signs in with a Relay token and
 * sees that token's workspace only (its graph's FactStore, as an MCP session of the token gets it),
 * read-only whatever the token may do. The token is checked again on every request through the
 * same cached check as the MCP endpoint, so a revoked token ends its studio sessions within
 * RELAY_HTTP_TOKEN_RECHECK_MS, its live streams with them. Each studio session has its own rate limit
 * bucket; one token has at most 8 sessions and 4 live streams (studioSessions.ts, studioEvents.ts).
 * The answer is the HttpApp serveHttp.ts routes the paths under /studio to.
 */
export const makeTeamStudio = (
  check: (presented: string) => Effect.Effect<Either.Either<Caller | null, ToolError>>,
  allowedHosts: () => ReadonlyArray<string>,
  allowedOrigins: ReadonlyArray<string>,
  secureCookies: boolean
) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const { storeFor } = yield* WorkspaceStores
    const base = yield* Effect.runtime<SecretScanner>()
    const sessions = makeStudioSessions()
    yield* Effect.addFinalizer(() => sessions.closeAll)

    /** Null for a token that is not good; fails with StudioUnavailable when the database could not say. */
    const signIn = (token: string) =>
      Effect.gen(function*() {
        const verified = yield* check(token)
        if (Either.isLeft(verified)) return yield* new StudioUnavailable()
        if (verified.right === null) return null
        const caller = verified.right
        const scope = yield* Scope.make()
        // Settings that do not read are a broken deployment, not a sign-in answer: logged, and the
        // request answered 503 (studioServer.ts).
        const store = yield* Scope.extend(storeFor(caller.workspace), scope).pipe(Effect.orDie)
        const limiter = yield* makeRateLimiter(settings.rateLimitPerMinute)
        const workspace: StudioWorkspace = {
          runtime: Runtime.updateContext(base, (c) => Context.add(Context.merge(c, store), RateLimiter, limiter)),
          name: caller.name,
          owner: caller.tokenId,
          stillValid: Effect.flatMap(check(token), (again) =>
            Either.isLeft(again)
              ? new StudioUnavailable()
              : Effect.succeed(again.right !== null && again.right.tokenId === caller.tokenId)),
          release: Scope.close(scope, Exit.void)
        }
        return workspace
      })

    return { app: studioApp({ sessions, allowedHosts, allowedOrigins, signIn, secureCookies }) }
  })
