import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js"
import {
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidTargetError,
  InvalidTokenError,
  ServerError
} from "@modelcontextprotocol/sdk/server/auth/errors.js"
import type { OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js"
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { Clock, Effect } from "effect"
import type { Response } from "express"
import { randomBytes } from "node:crypto"
import type { DatabaseError } from "../../domain/errors.js"
import { hashToken } from "../../domain/tokens.js"
import type { OAuthClient, OAuthStore, RefreshGrant } from "../../services/OAuthStore.js"
import { consentHeaders, consentPage } from "./consentPage.js"
import type { OAuthSettings } from "./OAuthSettings.js"
import type { PendingClients } from "./pendingClients.js"
import { redirectUrisProblem } from "./redirectUris.js"

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

/** A client as the edge knows it: approved and stored, or pending (signed into its id), or by its metadata document. */
export type FindClient = (clientId: string) => Promise<(OAuthClient & { readonly host?: string }) | null>

/**
 * Relay as its own authorization server, behind the SDK's handlers (mcpAuthRouter): they parse and
 * check every request (client, registered redirect URI, PKCE S256 against the stored challenge) and
 * this answers from the OAuth store. Clients are public (no secret: a hosted connector's secret would
 * protect nothing the PKCE verifier does not), so registration drops any secret asked for.
 *
 * Every refusal at the token endpoint happens before anything is spent: a code or refresh token
 * presented with the wrong redirect URI or resource is refused and stays usable by the right request.
 */
export const makeProvider = (options: {
  readonly store: OAuthStore["Type"]
  readonly settings: OAuthSettings
  readonly resource: URL
  readonly issuer: URL
  readonly run: RunStore
  readonly pending: () => Promise<PendingClients>
  readonly findClient: FindClient
}): OAuthServerProvider => {
  const { findClient, issuer, pending, resource, run, settings, store } = options
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
      const found = await findClient(clientId)
      return found === null ? undefined : toSdkClient(found)
    },
    registerClient: async (client) => {
      const redirectUris = client.redirect_uris.map(String)
      const problem = redirectUrisProblem(redirectUris)
      if (problem !== null) throw new InvalidClientMetadataError(problem)
      const name = (client.client_name ?? "an unnamed client").slice(0, 100)
      const at = await run(Clock.currentTimeMillis)
      return toSdkClient((await pending()).issue({ name, redirectUris }, at))
    }
  }

  return {
    clientsStore,
    authorize: async (client, params, res: Response) => {
      if (params.resource !== undefined && params.resource.href !== resource.href) {
        // Answered here rather than thrown to the SDK, so the refusal names its issuer (RFC 9207) too.
        const back = new URL(params.redirectUri)
        back.searchParams.set("error", "invalid_target")
        back.searchParams.set("error_description", "the resource is not this server")
        if (params.state !== undefined) back.searchParams.set("state", params.state)
        back.searchParams.set("iss", issuer.href)
        return void res.redirect(302, back.href)
      }
      const known = await findClient(client.client_id)
      res.set(consentHeaders)
      res.status(200).type("html").send(consentPage({
        clientName: client.client_name ?? client.client_id,
        ...(known?.host === undefined ? {} : { clientHost: known.host }),
        fields: {
          client_id: client.client_id,
          redirect_uri: params.redirectUri,
          code_challenge: params.codeChallenge,
          state: params.state ?? "",
          resource: resource.href
        }
      }))
    },
    challengeForAuthorizationCode: async (client, code) => {
      const grant = await run(store.peekCode(hashToken(code), client.client_id))
      if (grant === null) throw new InvalidGrantError("the code is not valid")
      return grant.challenge
    },
    exchangeAuthorizationCode: async (client, code, _verifier, redirectUri, asked) => {
      const hash = hashToken(code)
      const seen = await run(store.peekCode(hash, client.client_id))
      if (seen === null) throw new InvalidGrantError("the code is not valid")
      if (redirectUri !== undefined && redirectUri !== seen.redirectUri) {
        throw new InvalidGrantError("redirect_uri is not the one the code was issued for")
      }
      checkResource(asked, seen.resource)
      const grant = await run(store.takeCode(hash, client.client_id))
      if (grant === null) throw new InvalidGrantError("the code is not valid")
      return run(issue({
        clientId: client.client_id,
        resource: grant.resource,
        tokenId: grant.tokenId,
        family: randomBytes(12).toString("hex")
      }))
    },
    exchangeRefreshToken: async (client, refreshToken, _scopes, asked) => {
      const hash = hashToken(refreshToken)
      const seen = await run(store.peekRefresh(hash, client.client_id))
      if (seen === null) throw new InvalidGrantError("the refresh token is not valid")
      checkResource(asked, seen.resource)
      const grant = await run(store.takeRefresh(hash, client.client_id))
      if (grant === null) throw new InvalidGrantError("the refresh token is not valid")
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
