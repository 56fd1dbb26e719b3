import type { Runtime } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import type { ToolServices } from "../mcp/mcpHandlers.js"

/**
 * Who is signed in to the studio: a random session id in an HttpOnly, SameSite=Strict cookie,
 * mapped here to the workspace it may read (its tools' runtime). Sessions live in memory only and
 * end after `sessionMillis` or when the process ends. The laptop's one-time login secret is kept as
 * its SHA-256 only, used once, and never logged.
 */
export interface StudioWorkspace {
  readonly runtime: Runtime.Runtime<ToolServices>
  /** Who signed in (a token's name; "local" on a laptop). */
  readonly name: string
  /** Which database and graph it reads, for the page's empty state (laptop only: a team's is not told). */
  readonly where?: string
  /** Checked on each request: false once the token behind the session was revoked. */
  readonly stillValid: () => Promise<boolean>
  readonly release: () => Promise<void>
}

export const cookieName = "relay_studio"
const sessionMillis = 12 * 60 * 60 * 1000
const maxSessions = 256

interface Session {
  readonly workspace: StudioWorkspace
  readonly expires: number
  /** Live event streams open on this session (bounded, see studioEvents.ts). */
  streams: number
}

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest()

export const makeStudioSessions = (now: () => number) => {
  const sessions = new Map<string, Session>()
  const oneTime = new Set<string>()

  const sweep = () => {
    const t = now()
    for (const [id, s] of sessions) {
      if (s.expires <= t) {
        sessions.delete(id)
        void s.workspace.release()
      }
    }
  }

  return {
    /** The host's Clock (the page's "now" starts from it: studioServer.ts). */
    now,
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
    open: (workspace: StudioWorkspace): string | null => {
      sweep()
      if (sessions.size >= maxSessions) return null
      const id = randomBytes(32).toString("base64url")
      sessions.set(id, { workspace, expires: now() + sessionMillis, streams: 0 })
      return id
    },
    get: (cookieHeader: string | undefined): Session | undefined => {
      const id = cookieOf(cookieHeader)
      if (id === undefined) return undefined
      const s = sessions.get(id)
      if (s === undefined || s.expires <= now()) return undefined
      return s
    },
    closeAll: async () => {
      const all = [...sessions.values()]
      sessions.clear()
      await Promise.all(all.map((s) => s.workspace.release()))
    }
  }
}

export type StudioSessions = ReturnType<typeof makeStudioSessions>

const cookieOf = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(";")) {
    const [k, v] = part.trim().split("=")
    if (k === cookieName && v !== undefined && /^[A-Za-z0-9_-]{43}$/.test(v)) return v
  }
  return undefined
}

export const sessionCookie = (id: string, path: string) =>
  `${cookieName}=${id}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${sessionMillis / 1000}`
