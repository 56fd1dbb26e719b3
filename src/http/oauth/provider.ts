import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js"
import {
  InvalidGrantError,
  InvalidTargetError,
  InvalidTokenError,
  ServerError,
  TooManyRequestsError
} from "@modelcontextprotocol/sdk/server/auth/errors.js"
import type { OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js"
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { Clock, Effect } from "effect"
import type { Response } from "express"
import { randomBytes } from "node:crypto"
import type { DatabaseError } from "../../domain/errors.js"
import { hashToken } from "../../domain/tokens.js"
import type { OAuthClient, OAuthStore, RefreshGrant } from "../../services/OAuthStore.js"
import { consentPage } from "./consentPage.js"
import type { OAuthSettings } from "./OAuthSettings.js"

/** Runs one store call; a database failure becomes the SDK's 500/503-style OAuth error. */
export type RunStore = <A>(effect: Effect.Effect<A, DatabaseError>) => Promise<A>

/** Opaque, 256 random bits; the prefix tells an OAuth access token from a Relay token at a glance. */
export const newSecret = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`
export const accessPrefix = "relay_at_"
const refreshPrefix = "relay_rt_"

export const toSdkClient = (c: OAuthClient): OAuthClientInformationFull => ({
  client_id: c.clientId,
  client_id_issued_at: Math.floor(c.issuedAt / 1000),
  client_name: c.name,
  redirect_uris: [...c.redirectUris],
  token_endpoint_auth_method: "none",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"]
})

/**
 * Relay as its own authorization server, behind the SDK's handlers (mcpAuthRouter): they parse and
 * check every request (client, registered redirect URI, PKCE S256 against the stored challenge) and
 * this answers from the OAuth store. Clients are public (no secret: a hosted connector's secret would
 * protect nothing the PKCE verifier does not), so registration drops any secret asked for.
 */
export const makeProvider = (
  store: OAuthStore["Type"],
  settings: OAuthSettings,
  resource: URL,
  run: RunStore
): OAuthServerProvider => {
  const issue = (grant: RefreshGrant) =>
    Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      const access = newSecret(accessPrefix)
      const refresh = newSecret(refreshPrefix)
      yield* store.saveTokens({
        accessHash: hashToken(access),
        refreshHash: hashToken(refresh),
        accessExpiresAt: at + settings.accessTtlSeconds * 1000,
        refreshExpiresAt: at + settings.refreshTtlDays * 86_400_000
      }, grant)
      const tokens: OAuthTokens = {
        access_token: access,
        token_type: "Bearer",
        expires_in: settings.accessTtlSeconds,
        refresh_token: refresh
      }
      return tokens
    })
  /** A token is for this server's /mcp only (RFC 8707); none asked means this one. */
  const checkResource = (asked: URL | undefined, granted: string) => {
    if (asked !== undefined && asked.href !== granted) throw new InvalidTargetError("the resource is not this server")
  }

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: async (clientId) => {
      const found = await run(store.client(clientId))
      return found === null ? undefined : toSdkClient(found)
    },
    registerClient: async (client) => {
      const name = (client.client_name ?? "an unnamed client").slice(0, 100)
      const made = await run(store.register(
        {
          clientId: (client as { client_id?: string }).client_id ?? "",
          name,
          redirectUris: client.redirect_uris.map(String)
        },
        { maxClients: settings.maxClients, unusedTtlMillis: settings.unusedClientHours * 3_600_000 }
      ))
      if (made === null) throw new TooManyRequestsError("registration is full; try again later")
      return toSdkClient(made)
    }
  }

  return {
    clientsStore,
    authorize: (client, params, res: Response) => {
      if (params.resource !== undefined && params.resource.href !== resource.href) {
        throw new InvalidTargetError("the resource is not this server")
      }
      res.setHeader("cache-control", "no-store")
      res.setHeader("x-frame-options", "DENY")
      res.setHeader(
        "content-security-policy",
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
      )
      res.status(200).type("html").send(consentPage({
        clientName: client.client_name ?? client.client_id,
        fields: {
          client_id: client.client_id,
          redirect_uri: params.redirectUri,
          code_challenge: params.codeChallenge,
          state: params.state ?? "",
          resource: resource.href
        }
      }))
      return Promise.resolve()
    },
    challengeForAuthorizationCode: async (client, code) => {
      const challenge = await run(store.codeChallenge(hashToken(code), client.client_id))
      if (challenge === null) throw new InvalidGrantError("the code is not valid")
      return challenge
    },
    exchangeAuthorizationCode: async (client, code, _verifier, redirectUri, asked) => {
      const grant = await run(store.takeCode(hashToken(code), client.client_id))
      if (grant === null) throw new InvalidGrantError("the code is not valid")
      if (redirectUri !== undefined && redirectUri !== grant.redirectUri) {
        throw new InvalidGrantError("redirect_uri is not the one the code was issued for")
      }
      checkResource(asked, grant.resource)
      return run(issue({
        clientId: client.client_id,
        resource: grant.resource,
        tokenId: grant.tokenId,
        family: randomBytes(12).toString("hex")
      }))
    },
    exchangeRefreshToken: async (client, refreshToken, _scopes, asked) => {
      const grant = await run(store.takeRefresh(hashToken(refreshToken), client.client_id))
      if (grant === null) throw new InvalidGrantError("the refresh token is not valid")
      checkResource(asked, grant.resource)
      return run(issue(grant))
    },
    verifyAccessToken: async (token) => {
      const grant = await run(store.access(hashToken(token)))
      if (grant === null || grant.resource !== resource.href) throw new InvalidTokenError("the token is not valid")
      return { token, clientId: grant.clientId, scopes: [], resource: new URL(grant.resource) }
    },
    revokeToken: (client, request) => run(store.revoke(hashToken(request.token), client.client_id))
  }
}

export { ServerError }
