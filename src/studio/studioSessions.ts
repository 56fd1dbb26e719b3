import { Cookies } from "@effect/platform"
import { Clock, Effect, type Runtime, Schema } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import type { ToolServices } from "../mcp/mcpHandlers.js"

/**
 * Who is signed in to the studio: a random session id in an HttpOnly, SameSite=Strict cookie,
 * mapped here to the workspace it may read (its tools' runtime). Sessions live in memory only and
 * end after `sessionMillis`, when the process ends, when the token behind them is revoked, or when
 * the same token opens more than `perOwner` (its oldest ends). The laptop's one-time login secret
 * is kept as its SHA-256 only, used once, and never logged.
 */
export interface StudioWorkspace {
  readonly runtime: Runtime.Runtime<ToolServices>
  /** Who signed in (a token's name; "local" on a laptop). */
  readonly name: string
  /** Whose share of the caps this session counts in: the token's id (the name when absent, on a laptop). */
  readonly owner?: string
  /** Which database and graph it reads, for the page's empty state (laptop only: a team's is not told). */
  readonly where?: string
  /**
   * Checked on each request and each live poll: false once the token behind the session was revoked.
   * Rejects with StudioUnavailable when the database could not say (down, failing over): the session
   * is kept, and the request is answered 503.
   */
  readonly stillValid: Effect.Effect<boolean, StudioUnavailable>
  readonly release: Effect.Effect<void>
}

/** The database could not check a token (down, failing over): not a refusal, so nobody is signed out. */
export class StudioUnavailable extends Schema.TaggedError<StudioUnavailable>()("StudioUnavailable", {}) {}

export const cookieName = "relay_studio"
const sessionMillis = 12 * 60 * 60 * 1000
/** All sessions at most, and one token's: one token fills only its own share. */
export const sessionLimits = { maxSessions: 256, perOwner: 8 }

export interface StudioSession {
  readonly workspace: StudioWorkspace
  readonly owner: string
  readonly expires: number
  /** Set once the session ended (expired, revoked, crowded out): its live streams end at their next poll. */
  closed: boolean
}

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest()

export const makeStudioSessions = () => {
  // Insertion order is opening order: a token's first entry is its oldest session.
  const sessions = new Map<string, StudioSession>()
  const oneTime = new Set<string>()

  const end = (id: string, s: StudioSession) =>
    Effect.suspend(() => {
      sessions.delete(id)
      s.closed = true
      return Effect.forkDaemon(s.workspace.release)
    })
  const sweep = Effect.flatMap(
    Clock.currentTimeMillis,
    (t) => Effect.forEach([...sessions].filter(([, s]) => s.expires <= t), ([id, s]) => end(id, s), { discard: true })
  )
  /** Ends every session whose token was revoked: asked only when the cap is reached (each is a cached check). */
  const sweepRevoked = Effect.suspend(() =>
    Effect.forEach(
      [...sessions],
      ([id, s]) =>
        Effect.flatMap(
          Effect.orElseSucceed(s.workspace.stillValid, () => true),
          (valid) => !valid && sessions.get(id) === s ? end(id, s) : Effect.void
        ),
      { concurrency: "unbounded", discard: true }
    )
  )

  return {
    /** A new single-use login secret (the laptop's printed URL). */
    newLoginSecret: (): string => {
      const secret = randomBytes(24).toString("base64url")
      oneTime.add(sha256(secret).toString("hex"))
      return secret
    },
    /** Spends a login secret: true once for a secret that was issued, false ever after. */
    spendLoginSecret: (presented: string): boolean => {
      const digest = sha256(presented)
      for (const kept of oneTime) {
        const k = Buffer.from(kept, "hex")
        if (k.length === digest.length && timingSafeEqual(k, digest)) {
          oneTime.delete(kept)
          return true
        }
      }
      return false
    },
    /** A new session's id; its token's oldest session ends when it already has `perOwner`. Null when all are taken. */
    open: (workspace: StudioWorkspace): Effect.Effect<string | null> =>
      Effect.gen(function*() {
        yield* sweep
        const owner = workspace.owner ?? workspace.name
        const own = [...sessions].filter(([, s]) => s.owner === owner)
        for (const [id, s] of own.slice(0, Math.max(0, own.length - sessionLimits.perOwner + 1))) yield* end(id, s)
        if (sessions.size >= sessionLimits.maxSessions) yield* sweepRevoked
        if (sessions.size >= sessionLimits.maxSessions) return null
        const id = randomBytes(32).toString("base64url")
        sessions.set(id, { workspace, owner, expires: (yield* Clock.currentTimeMillis) + sessionMillis, closed: false })
        return id
      }),
    /**
     * The cookie's live session, or undefined; a session whose token was revoked ends here. Fails
     * with StudioUnavailable, the session kept, when the token could not be checked.
     */
    get: (cookies: Readonly<Record<string, string>>): Effect.Effect<StudioSession | undefined, StudioUnavailable> =>
      Effect.gen(function*() {
        const id = cookies[cookieName]
        if (id === undefined || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined
        const s = sessions.get(id)
        if (s === undefined || s.expires <= (yield* Clock.currentTimeMillis)) return undefined
        if (!(yield* s.workspace.stillValid)) {
          if (sessions.get(id) === s) yield* end(id, s)
          return undefined
        }
        return s
      }),
    closeAll: Effect.suspend(() => {
      const all = [...sessions.values()]
      sessions.clear()
      for (const s of all) s.closed = true
      return Effect.forEach(all, (s) => s.workspace.release, { concurrency: "unbounded", discard: true })
    })
  }
}

export type StudioSessions = ReturnType<typeof makeStudioSessions>

/** The session cookie; `Secure` when Relay is reached over https (RELAY_PUBLIC_URL), so it never travels in clear. */
export const sessionCookie = (id: string, path: string, secure = false) =>
  Cookies.unsafeMakeCookie(cookieName, id, {
    path,
    httpOnly: true,
    sameSite: "strict",
    maxAge: `${sessionMillis / 1000} seconds`,
    secure
  })
