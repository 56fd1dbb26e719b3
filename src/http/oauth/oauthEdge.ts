import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js"
import { Clock, Effect } from "effect"
import express, { type Request, type Response } from "express"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { DatabaseError } from "../../domain/errors.js"
import { type Caller, hashToken } from "../../domain/tokens.js"
import type { OAuthStore } from "../../services/OAuthStore.js"
import type { TokenStoreShape } from "../../services/TokenStore.js"
import { consentPage } from "./consentPage.js"
import type { OAuthSettings } from "./OAuthSettings.js"
import { accessPrefix, makeProvider, newSecret, type RunStore } from "./provider.js"

/** A code is exchanged at once by the client that asked for it. */
const codeTtlMillis = 60_000

/** Every path the authorization server answers; anything else is the MCP endpoint's or nobody's. */
const oauthPaths = new Set([
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-authorization-server",
  "/authorize",
  "/token",
  "/register",
  "/revoke",
  "/consent"
])

const field = (body: unknown, name: string) => {
  const v = (body as Record<string, unknown> | undefined)?.[name]
  return typeof v === "string" ? v : ""
}

/**
 * The OAuth 2.1 side of the HTTP edge (MCP authorization, 2025-11-25): the SDK's mcpAuthRouter serves
 * the metadata (RFC 9728, RFC 8414), registration (RFC 7591, rate-limited per peer address), the
 * authorize, token and revoke endpoints; Relay adds the consent form's POST and the check of an access
 * token on every MCP request, audience included (RFC 8707).
 */
export const makeOAuthEdge = (options: {
  readonly publicUrl: URL
  readonly settings: OAuthSettings
  readonly store: OAuthStore["Type"]
  readonly tokens: TokenStoreShape
  readonly run: RunStore
}) => {
  const { publicUrl, run, settings, store, tokens } = options
  const resource = new URL("/mcp", publicUrl)
  const provider = makeProvider(store, settings, resource, run)
  const app = express()
  app.disable("x-powered-by")
  app.use(mcpAuthRouter({
    provider,
    issuerUrl: publicUrl,
    resourceServerUrl: resource,
    resourceName: "Relay",
    clientRegistrationOptions: {
      rateLimit: { windowMs: 3_600_000, max: settings.registrationsPerPeerHour }
    }
  }))

  const consent = async (req: Request, res: Response) => {
    res.setHeader("cache-control", "no-store")
    // A form posted from another site is refused: the page is the only place a person approves.
    const origin = req.headers.origin
    if (origin !== undefined && origin !== publicUrl.origin) return void res.status(403).type("text").send("Forbidden")
    const body = req.body as unknown
    const clientId = field(body, "client_id")
    const redirectUri = field(body, "redirect_uri")
    const challenge = field(body, "code_challenge")
    const state = field(body, "state")
    const client = await run(store.client(clientId))
    // Checked again: the form's fields are the browser's, and a redirect to an unregistered address
    // would hand the code to whoever chose it (open redirect).
    if (client === null || !client.redirectUris.includes(redirectUri)) {
      return void res.status(400).type("text").send("Bad request: unknown client or redirect URI")
    }
    if (field(body, "resource") !== resource.href || !/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) {
      return void res.status(400).type("text").send("Bad request: resource or code challenge")
    }
    const back = new URL(redirectUri)
    if (state !== "") back.searchParams.set("state", state)
    back.searchParams.set("iss", publicUrl.href)
    if (field(body, "decision") !== "approve") {
      back.searchParams.set("error", "access_denied")
      return void res.redirect(302, back.href)
    }
    const caller = await run(tokens.verify(field(body, "relay_token")))
    // An approver token is a person's alone: it never lets an assistant in.
    if (caller === null || caller.approver) {
      return void res.status(401).type("html").send(consentPage({
        clientName: client.name,
        fields: {
          client_id: clientId,
          redirect_uri: redirectUri,
          code_challenge: challenge,
          state,
          resource: resource.href
        },
        error: caller === null
          ? "That Relay token was not accepted (wrong, or revoked)."
          : "An approver token cannot connect an assistant; use a token made for one."
      }))
    }
    const code = newSecret("")
    const at = await run(Clock.currentTimeMillis)
    await run(store.saveCode(
      hashToken(code),
      { clientId, redirectUri, challenge, resource: resource.href, tokenId: caller.tokenId },
      at + codeTtlMillis
    ))
    back.searchParams.set("code", code)
    res.redirect(302, back.href)
  }
  app.post("/consent", express.urlencoded({ extended: false, limit: "16kb" }), (req, res) => {
    consent(req, res).catch(() => {
      if (!res.headersSent) res.status(503).set("retry-after", "2").type("text").send("Service unavailable")
    })
  })

  /** Who an OAuth access token stands for: its Relay token's caller, if the token is for this server. */
  const verifyAccess = (presented: string): Effect.Effect<Caller | null, DatabaseError> =>
    store.access(hashToken(presented)).pipe(
      Effect.map((grant) => grant === null || grant.resource !== resource.href ? null : grant.caller)
    )

  return {
    /** True for a request the authorization server answers. */
    owns: (url: string) => oauthPaths.has(url.split("?", 1)[0]!),
    handle: (req: IncomingMessage, res: ServerResponse) => void app(req as Request, res as Response),
    isAccessToken: (presented: string) => presented.startsWith(accessPrefix),
    verifyAccess,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource)
  }
}

export type OAuthEdge = ReturnType<typeof makeOAuthEdge>
