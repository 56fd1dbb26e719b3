import { Clock, Context, Effect, Exit, Runtime, Scope } from "effect"
import { randomUUID } from "node:crypto"
import type { Caller } from "../domain/tokens.js"
import { makeWorkspaceStores } from "../layers/WorkspaceStores.js"
import { makeRelayServer, runOn } from "../mcp/mcpHandlers.js"
import { structuredContentSetting } from "../mcp/replyForm.js"
import { teamGate } from "../mcp/teamGate.js"
import { makeRateLimiter, RateLimiter } from "../services/RateLimiter.js"
import type { SecretScanner } from "../services/SecretScanner.js"
import { Settings } from "../services/Settings.js"
import { JsonHttpTransport } from "./jsonTransport.js"

export interface Session {
  readonly caller: Caller
  readonly transport: JsonHttpTransport
  readonly close: () => Promise<void>
  lastSeen: number
}

/**
 * The open MCP sessions: each has its own `Server` and transport, kept for the session's life (built
 * once, not per request), on a runtime holding its workspace's FactStore and its token's rate limiter.
 */
export const makeSessions = Effect.gen(function*() {
  const settings = yield* Settings
  const form = { structured: yield* structuredContentSetting }
  const storeFor = yield* makeWorkspaceStores
  // A token's bucket outlives its sessions: closing and reopening a session must not refill it.
  const limiterFor = yield* Effect.cachedFunction((_tokenId: string) => makeRateLimiter(settings.rateLimitPerMinute))
  const base = yield* Effect.runtime<SecretScanner>()
  const run = Runtime.runPromise(base)
  const open = new Map<string, Session>()

  const openSession = (caller: Caller) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const store = yield* Scope.extend(storeFor(caller.workspace), scope)
      const limiter = yield* limiterFor(caller.tokenId)
      const runtime = Runtime.updateContext(base, (c) => Context.add(Context.merge(c, store), RateLimiter, limiter))
      const server = makeRelayServer(runOn(runtime), teamGate(caller), form)
      let closing: Promise<void> | undefined
      const transport: JsonHttpTransport = new JsonHttpTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          open.set(id, session)
        },
        onsessionclosed: () => close()
      })
      const close = () => {
        closing ??= (async () => {
          if (transport.sessionId !== undefined) open.delete(transport.sessionId)
          await server.close().catch(() => undefined)
          await run(Scope.close(scope, Exit.void))
        })()
        return closing
      }
      const session: Session = { caller, transport, close, lastSeen: yield* Clock.currentTimeMillis }
      transport.onclose = () => void close()
      yield* Effect.promise(() => server.connect(transport))
      return session
    })

  /** Sessions a client never closed are closed after `idleMillis` without a request. */
  const closeIdle = (idleMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const idle = [...open.values()].filter((s) => now - s.lastSeen > idleMillis)
      yield* Effect.promise(() => Promise.all(idle.map((s) => s.close())))
    })

  const closeAll = Effect.promise(() => Promise.all([...open.values()].map((s) => s.close())))
  const countFor = (tokenId: string) => [...open.values()].filter((s) => s.caller.tokenId === tokenId).length
  return { open, openSession, closeIdle, closeAll, countFor }
})
