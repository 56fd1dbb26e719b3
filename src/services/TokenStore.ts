import { Context, type Effect } from "effect"
import type { DatabaseError, InvalidInput } from "../domain/errors.js"
import type { Caller, TokenRecord } from "../domain/tokens.js"

export interface TokenStoreShape {
  /**
   * Makes a token and returns it: the only time it is ever seen; only its hash is kept. A name that
   * differs from a live token's only in case is refused (names compare without case, ids.ts).
   */
  readonly create: (
    options: {
      readonly name: string
      readonly workspace: string
      readonly readOnly: boolean
      readonly approver?: boolean
    }
  ) => Effect.Effect<{ readonly token: string; readonly record: TokenRecord }, InvalidInput | DatabaseError>
  readonly list: Effect.Effect<ReadonlyArray<TokenRecord>, DatabaseError>
  /** Revokes the token with this id, or every live token with this name; answers the ids revoked. */
  readonly revoke: (idOrName: string) => Effect.Effect<ReadonlyArray<string>, DatabaseError>
  /** The caller a presented token stands for, or none when it is malformed, unknown, wrong or revoked. */
  readonly verify: (token: string) => Effect.Effect<Caller | null, DatabaseError>
}

/**
 * Bearer tokens in the admin graph (RELAY_TOKEN_GRAPH): made, listed, revoked, and checked.
 * Implemented by layers/tokens (TokenStoreLive).
 */
export class TokenStore extends Context.Tag("relay/TokenStore")<TokenStore, TokenStoreShape>() {}
