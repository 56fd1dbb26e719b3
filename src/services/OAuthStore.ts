import { Context, type Effect } from "effect"
import type { DatabaseError } from "../domain/errors.js"
import type { Caller } from "../domain/tokens.js"

/** A registered OAuth client (RFC 7591): public, so it has no secret. */
export interface OAuthClient {
  readonly clientId: string
  readonly name: string
  readonly redirectUris: ReadonlyArray<string>
  readonly issuedAt: number
}

/** An authorization code's grant, as the consent page made it. */
export interface CodeGrant {
  readonly clientId: string
  readonly redirectUri: string
  readonly challenge: string
  readonly resource: string
  /** The Relay token the person signed in with: the issued tokens act as it. */
  readonly tokenId: string
}

/** A refresh token's grant: what a new pair is issued for. */
export interface RefreshGrant {
  readonly clientId: string
  readonly resource: string
  readonly tokenId: string
  readonly family: string
}

/** What an access token stands for, when it is good. */
export interface AccessGrant {
  readonly caller: Caller
  readonly resource: string
  readonly clientId: string
}

/**
 * OAuth clients, codes and tokens in the admin graph, beside the Relay tokens they act as. Codes and
 * tokens are kept only as SHA-256 hashes; every lookup is by that hash. `now` comes from the caller's
 * Clock so tests drive expiry with TestClock.
 */
export class OAuthStore extends Context.Tag("relay/OAuthStore")<OAuthStore, {
  readonly client: (clientId: string) => Effect.Effect<OAuthClient | null, DatabaseError>
  /**
   * Registers a client unless `maxClients` are registered; registrations never used for a code
   * within `unusedTtlMillis` are deleted first. Null when full.
   */
  readonly register: (
    client: Omit<OAuthClient, "issuedAt">,
    limits: { readonly maxClients: number; readonly unusedTtlMillis: number }
  ) => Effect.Effect<OAuthClient | null, DatabaseError>
  readonly saveCode: (codeHash: string, grant: CodeGrant, expiresAt: number) => Effect.Effect<void, DatabaseError>
  /** The PKCE challenge of a live, unused code of this client. */
  readonly codeChallenge: (codeHash: string, clientId: string) => Effect.Effect<string | null, DatabaseError>
  /** Uses a code up: its grant once, null if unknown, expired, used or another client's. */
  readonly takeCode: (codeHash: string, clientId: string) => Effect.Effect<CodeGrant | null, DatabaseError>
  /** Stores an access and a refresh token of one family (a chain of rotations). */
  readonly saveTokens: (
    pair: {
      readonly accessHash: string
      readonly refreshHash: string
      readonly accessExpiresAt: number
      readonly refreshExpiresAt: number
    },
    grant: RefreshGrant
  ) => Effect.Effect<void, DatabaseError>
  /**
   * Uses a refresh token up (rotation): its grant once. A refresh token presented again after use is a
   * stolen copy or a replay: its whole family is revoked, and null answered.
   */
  readonly takeRefresh: (refreshHash: string, clientId: string) => Effect.Effect<RefreshGrant | null, DatabaseError>
  /** An access token's grant while it is unexpired, unrevoked, and its Relay token is too. */
  readonly access: (accessHash: string) => Effect.Effect<AccessGrant | null, DatabaseError>
  /** Revokes the token with this hash (access or refresh) and its family, if it is this client's. */
  readonly revoke: (hash: string, clientId: string) => Effect.Effect<void, DatabaseError>
}>() {}
