import { Clock, Context, Effect, Exit, Runtime, Scope } from "effect"
import type { Caller } from "../domain/tokens.js"
import { makeRelayServer, runOn } from "../mcp/mcpHandlers.js"
import { structuredContentSetting } from "../mcp/replyForm.js"
import { teamGate } from "../mcp/teamGate.js"
import { makeRateLimiter, RateLimiter } from "../services/RateLimiter.js"
import type { SecretScanner } from "../services/SecretScanner.js"
import { Settings } from "../services/Settings.js"
import { WorkspaceStores } from "../services/WorkspaceStores.js"
import { JsonHttpTransport } from "./jsonTransport.js"

interface Session {
  readonly caller: Caller
  readonly transport: JsonHttpTransport
  readonly close: () => Promise<void>
  lastSeen: number
  /** Requests of this session not yet answered: a session with any is busy, never evicted. */
  inFlight: number
}

/**
 * The open MCP sessions: each has its own `Server` and transport, kept for the session's life (built
 * once, not per request), on a runtime holding its workspace's FactStore and its token's rate limiter.
 */
export const makeSessions = Effect.gen(function*() {
  const settings = yield* Settings
  const form = { json: yield* structuredContentSetting }
  const { storeFor } = yield* WorkspaceStores
  // A token's bucket outlives its sessions: closing and reopening a session must not refill it.
  const limiterFor = yield* Effect.cachedFunction((_tokenId: string) => makeRateLimiter(settings.rateLimitPerMinute))
  const base = yield* Effect.runtime<SecretScanner>()
  const run = Runtime.runPromise(base)
  const open = new Map<string, Session>()

  /** A server on the caller's workspace and rate limit, held until `release`. */
  const serverFor = (caller: Caller) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const store = yield* Scope.extend(storeFor(caller.workspace), scope)
      const limiter = yield* limiterFor(caller.tokenId)
      const runtime = Runtime.updateContext(base, (c) => Context.add(Context.merge(c, store), RateLimiter, limiter))
      const server = makeRelayServer(runOn(runtime), teamGate(caller), form)
      return { server, release: () => run(Scope.close(scope, Exit.void)) }
    })

  const openSession = (caller: Caller) =>
    Effect.gen(function*() {
      const { release, server } = yield* serverFor(caller)
      let closing: Promise<void> | undefined
      const transport: JsonHttpTransport = new JsonHttpTransport({
        onsessioninitialized: (id) => {
          open.set(id, session)
        }
      })
      const close = () => {
        closing ??= (async () => {
          if (transport.sessionId !== undefined) open.delete(transport.sessionId)
          await server.close().catch(() => undefined)
          await release()
        })()
        return closing
      }
      const session: Session = { caller, transport, close, lastSeen: yield* Clock.currentTimeMillis, inFlight: 0 }
      transport.onclose = () => void close()
      yield* Effect.promise(() => server.connect(transport))
      return session
    })

  const closeWhere = (close: (s: Session) => boolean) =>
    Effect.promise(() => Promise.all([...open.values()].filter(close).map((s) => s.close())))

  /** Sessions a client never closed are closed after `idleMillis` without a request. */
  const closeIdle = (idleMillis: number) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => closeWhere((s) => now - s.lastSeen > idleMillis))

  const closeAll = closeWhere(() => true)
  const countFor = (tokenId: string) => [...open.values()].filter((s) => s.caller.tokenId === tokenId).length

  /**
   * The token's least recently used session with no request in flight, closed to make room for a new
   * one: clients that never send DELETE (each run of some) would otherwise lock their token out until
   * the idle sweep. False when every session of the token is busy.
   */
  const evictIdleOf = async (tokenId: string) => {
    let oldest: Session | undefined
    for (const s of open.values()) {
      if (s.caller.tokenId === tokenId && s.inFlight === 0 && (oldest === undefined || s.lastSeen < oldest.lastSeen)) {
        oldest = s
      }
    }
    if (oldest === undefined) return false
    await oldest.close()
    return true
  }
  /** One call's worth of the token's rate limit, spent by a request that runs no tool (an unknown session). */
  const spend = (tokenId: string) => Effect.flatMap(limiterFor(tokenId), (limiter) => limiter.take)
  return { open, openSession, serverFor, closeIdle, closeAll, countFor, evictIdleOf, spend }
})
