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

  /** The caller's workspace store and rate limit, on a runtime held until `scope` closes. */
  const runtimeIn = (caller: Caller, scope: Scope.Scope) =>
    Effect.gen(function*() {
      const store = yield* Scope.extend(storeFor(caller.workspace), scope)
      const limiter = yield* limiterFor(caller.tokenId)
      return Runtime.updateContext(base, (c) => Context.add(Context.merge(c, store), RateLimiter, limiter))
    })

  /** A server on the caller's workspace and rate limit, held until `release`. */
  const serverFor = (caller: Caller) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = makeRelayServer(runOn(yield* runtimeIn(caller, scope)), teamGate(caller), form)
      return { server, release: () => run(Scope.close(scope, Exit.void)) }
    })

  /**
   * Each token's runtime as its 2026 requests use it, kept between them and let go with idle
   * sessions: taking and letting go of the workspace's store per request cost more than building the
   * request's server. Only a cache: the token is checked on every request before it is used, and the
   * store and rate bucket are the ones its sessions share.
   */
  const held = new Map<string, {
    readonly runtime: Effect.Effect.Success<ReturnType<typeof runtimeIn>>
    readonly scope: Scope.CloseableScope
    lastSeen: number
  }>()

  /** A server for one 2026 request on the caller's held runtime; its release has nothing to let go. */
  const requestServerFor = (caller: Caller) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      let kept = held.get(caller.tokenId)
      if (kept === undefined) {
        const scope = yield* Scope.make()
        const runtime = yield* runtimeIn(caller, scope)
        // Two first requests of a token at once: the one recorded first is kept.
        kept = held.get(caller.tokenId)
        if (kept === undefined) held.set(caller.tokenId, kept = { runtime, scope, lastSeen: now })
        else yield* Scope.close(scope, Exit.void)
      }
      kept.lastSeen = now
      const server = makeRelayServer(runOn(kept.runtime), teamGate(caller), form)
      return { server, release: () => Promise.resolve() }
    })

  const letGoHeld = (idle: (lastSeen: number) => boolean) =>
    Effect.forEach([...held].filter(([, h]) => idle(h.lastSeen)), ([tokenId, h]) => {
      held.delete(tokenId)
      return Scope.close(h.scope, Exit.void)
    }, { discard: true })

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
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.zipRight(
        closeWhere((s) => now - s.lastSeen > idleMillis),
        letGoHeld((lastSeen) => now - lastSeen > idleMillis)
      ))

  const closeAll = Effect.zipRight(closeWhere(() => true), letGoHeld(() => true))
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
  return { open, openSession, requestServerFor, closeIdle, closeAll, countFor, evictIdleOf, spend }
})
