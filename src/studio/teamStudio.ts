import { Clock, Context, Effect, Either, Exit, Runtime, Scope } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { ToolError } from "../domain/errors.js"
import type { Caller } from "../domain/tokens.js"
import { makeRateLimiter, RateLimiter } from "../services/RateLimiter.js"
import type { SecretScanner } from "../services/SecretScanner.js"
import { Settings } from "../services/Settings.js"
import { WorkspaceStores } from "../services/WorkspaceStores.js"
import { handleStudio } from "./studioServer.js"
import { makeStudioSessions, StudioUnavailable, type StudioWorkspace } from "./studioSessions.js"

/**
 * The studio in team mode (`relay --http`, at /studio): a person signs in with a Relay token and
 * sees that token's workspace only (its graph's FactStore, as an MCP session of the token gets it),
 * read-only whatever the token may do. The token is checked again on every request through the
 * same cached check as the MCP endpoint, so a revoked token ends its studio sessions within
 * RELAY_HTTP_TOKEN_RECHECK_MS, its live streams with them. Each studio session has its own rate limit
 * bucket; one token has at most 8 sessions and 4 live streams (studioSessions.ts, studioEvents.ts).
 */
export const makeTeamStudio = (
  check: (presented: string) => Effect.Effect<Either.Either<Caller | null, ToolError>>,
  allowedOrigins: ReadonlyArray<string>,
  secureCookies: boolean
) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    const { storeFor } = yield* WorkspaceStores
    const base = yield* Effect.runtime<SecretScanner>()
    const run = Runtime.runPromise(base)
    const sessions = makeStudioSessions(() => Runtime.runSync(base)(Clock.currentTimeMillis))
    yield* Effect.addFinalizer(() => Effect.promise(() => sessions.closeAll()))

    /** Null for a token that is not good; rejects with StudioUnavailable when the database could not say. */
    const signIn = async (token: string): Promise<StudioWorkspace | null> => {
      const verified = await run(check(token))
      if (Either.isLeft(verified)) throw new StudioUnavailable()
      if (verified.right === null) return null
      const caller = verified.right
      return run(Effect.gen(function*() {
        const scope = yield* Scope.make()
        const store = yield* Scope.extend(storeFor(caller.workspace), scope)
        const limiter = yield* makeRateLimiter(settings.rateLimitPerMinute)
        const runtime = Runtime.updateContext(base, (c) => Context.add(Context.merge(c, store), RateLimiter, limiter))
        const workspace: StudioWorkspace = {
          runtime,
          name: caller.name,
          owner: caller.tokenId,
          stillValid: async () => {
            const again = await run(check(token))
            if (Either.isLeft(again)) throw new StudioUnavailable()
            return again.right !== null && again.right.tokenId === caller.tokenId
          },
          release: () => run(Scope.close(scope, Exit.void))
        }
        return workspace
      }))
    }

    return {
      handle: (req: IncomingMessage, res: ServerResponse, allowedHosts: ReadonlyArray<string>) =>
        handleStudio(req, res, allowedHosts, { sessions, allowedOrigins, signIn, secureCookies })
    }
  })
