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
  /** An approved client: one a person approved at least once (a pending registration is not stored). */
  readonly client: (clientId: string) => Effect.Effect<OAuthClient | null, DatabaseError>
  /**
   * Keeps a client a person just approved (the same one again is kept once). Under `maxClients`
   * approved clients; at the cap, clients with no live refresh token approved over `idleMillis` ago
   * make room first. Null when none could.
   */
  readonly approveClient: (
    client: OAuthClient,
    limits: { readonly maxClients: number; readonly idleMillis: number }
  ) => Effect.Effect<OAuthClient | null, DatabaseError>
  /** The key pending registrations are signed with, made once per admin graph (pendingClients.ts). */
  readonly registrationKey: Effect.Effect<string, DatabaseError>
  readonly saveCode: (codeHash: string, grant: CodeGrant, expiresAt: number) => Effect.Effect<void, DatabaseError>
  /**
   * A live, unused code of this client whose Relay token is unrevoked: its grant, spending nothing
   * (the token endpoint checks the request against it before it spends the code).
   */
  readonly peekCode: (codeHash: string, clientId: string) => Effect.Effect<CodeGrant | null, DatabaseError>
  /** Uses a code up: its grant once, null if unknown, expired, used, another client's or its token revoked. */
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
  /** A refresh token's grant, spent or not, while it is unexpired and unrevoked: spends nothing. */
  readonly peekRefresh: (refreshHash: string, clientId: string) => Effect.Effect<RefreshGrant | null, DatabaseError>
  /**
   * Uses a refresh token up (rotation): its grant once, while the Relay token that approved it is
   * unrevoked. A refresh token presented again after use is a stolen copy or a replay: its whole
   * family is revoked, and null answered.
   */
  readonly takeRefresh: (refreshHash: string, clientId: string) => Effect.Effect<RefreshGrant | null, DatabaseError>
  /** An access token's grant while it is unexpired, unrevoked, and its Relay token is too. */
  readonly access: (accessHash: string) => Effect.Effect<AccessGrant | null, DatabaseError>
  /** Revokes the token with this hash (access or refresh) and its family, if it is this client's. */
  readonly revoke: (hash: string, clientId: string) => Effect.Effect<void, DatabaseError>
}>() {}
