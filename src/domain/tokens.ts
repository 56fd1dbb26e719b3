import { Schema } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { AgentName } from "./ids.js"

/**
 * A bearer token is `relay_<id>_<secret>`: the id (16 hex digits) is the public key it is looked up
 * by, the secret 32 random bytes in base64url. Only the SHA-256 of the whole token is stored. Looking
 * up by the id, never by the secret, keeps the secret out of every index and query.
 */
const tokenPattern = /^relay_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/

export interface ParsedToken {
  readonly id: string
  readonly token: string
}

/** The id of a well-formed token, or null for anything else (never thrown, never echoed). */
export const parseToken = (token: string): ParsedToken | null => {
  const match = tokenPattern.exec(token)
  return match === null ? null : { id: match[1]!, token }
}

export const formatToken = (id: string, secret: string) => `relay_${id}_${secret}`

/** Hex SHA-256 of the whole token: what the admin graph keeps. */
export const hashToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex")

/** Constant time in the secret: both sides are 32-byte digests, so lengths never differ. */
export const tokenMatches = (token: string, storedHash: string): boolean => {
  const stored = Buffer.from(storedHash, "hex")
  const presented = createHash("sha256").update(token, "utf8").digest()
  return stored.length === presented.length && timingSafeEqual(stored, presented)
}

/** A workspace is its own graph (`relay_ws_<name>`), so its name is kept to a graph name's safe letters. */
export const WorkspaceName = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9_-]{0,47}$/, {
    message: () => "must be 1-48 characters of lower-case letters, digits, '_' or '-', starting with a letter or digit"
  })
)

/** The token's name is the author written into every fact its holder saves, so it is an AgentName. */
export const TokenName = AgentName

export const workspaceGraph = (workspace: string) => `relay_ws_${workspace}`

/** What the admin graph holds about one token (never the token itself). */
export interface TokenRecord {
  readonly id: string
  readonly name: string
  readonly workspace: string
  readonly readOnly: boolean
  /** A person's token for approving tasks (`--approver`): it opens no MCP session, so no assistant holds it. */
  readonly approver: boolean
  readonly createdAt: number
  readonly revokedAt: number | null
}

/** Who is calling over HTTP: a verified, unrevoked token. */
export interface Caller {
  readonly tokenId: string
  readonly name: string
  readonly workspace: string
  readonly readOnly: boolean
  readonly approver: boolean
}
