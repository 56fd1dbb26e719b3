import { redirectUriMatches } from "@modelcontextprotocol/sdk/server/auth/handlers/authorize.js"
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter
} from "@modelcontextprotocol/sdk/server/auth/router.js"
import { Clock, Effect } from "effect"
import express, { type Request, type Response } from "express"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { BlockList } from "node:net"
import type { DatabaseError } from "../../domain/errors.js"
import { type Caller, hashToken } from "../../domain/tokens.js"
import type { OAuthStore } from "../../services/OAuthStore.js"
import type { TokenStoreShape } from "../../services/TokenStore.js"
import { addressKey, clientAddress } from "../clientAddress.js"
import { isDocumentClientId, makeClientDocuments } from "./clientDocuments.js"
import { consentHeaders, consentPage, continuePage, refusalPage } from "./consentPage.js"
import type { OAuthSettings } from "./OAuthSettings.js"
import { makePendingClients, type PendingClients } from "./pendingClients.js"
import { accessPrefix, type FindClient, makeProvider, newSecret, type RunStore } from "./provider.js"

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
 * the metadata (RFC 9728, RFC 8414), registration (RFC 7591, rate-limited per client address), the
 * authorize, token and revoke endpoints; Relay adds the consent form's POST and the check of an access
 * token on every MCP request, audience included (RFC 8707).
 */
export const makeOAuthEdge = (options: {
  readonly publicUrl: URL
  readonly settings: OAuthSettings
  readonly store: OAuthStore["Type"]
  readonly tokens: TokenStoreShape
  readonly run: RunStore
  readonly proxies: BlockList
}) => {
  const { proxies, publicUrl, run, settings, store, tokens } = options
  const resource = new URL("/mcp", publicUrl)
  const pendingMillis = settings.pendingClientMinutes * 60_000
  // The registration key is the admin graph's, read on first use (a database down at start delays
  // only the first registration) and then kept.
  let pendingClients: Promise<PendingClients> | undefined
  const pending = () => {
    const made = pendingClients ?? run(store.registrationKey).then((key) => makePendingClients(key, pendingMillis))
    pendingClients = made
    made.catch(() => {
      if (pendingClients === made) pendingClients = undefined
    })
    return made
  }
  const documents = makeClientDocuments({
    allowedHosts: settings.clientDocumentHosts,
    now: () => run(Clock.currentTimeMillis)
  })
  const isDocumentClient = (clientId: string) => isDocumentClientId(clientId, settings.clientDocumentHosts)
  const findClient: FindClient = async (clientId) => {
    // A client known by its metadata document is that document, always: it is never stored.
    if (isDocumentClient(clientId)) return documents.read(clientId)
    const stored = await run(store.client(clientId))
    if (stored !== null) return stored
    return (await pending()).read(clientId, await run(Clock.currentTimeMillis))
  }
  const provider = makeProvider({ store, settings, resource, issuer: publicUrl, run, findClient, pending })

  // Every per-address limit counts the client behind a trusted proxy, not the proxy (clientAddress.ts).
  const perClient = (windowMs: number, max: number) => ({
    windowMs,
    max,
    keyGenerator: (req: Request) => addressKey(clientAddress(req, proxies)),
    // The address is Relay's to work out; the library's checks of Express's own notion of it do not apply.
    validate: { xForwardedForHeader: false, forwardedHeader: false, ip: false, trustProxy: false }
  })

  const app = express()
  app.disable("x-powered-by")
  // The SDK's metadata, and what it does not say: clients may be known by a metadata document (CIMD),
  // and every client is public ("none"; a secret would protect nothing PKCE does not).
  const metadata = {
    ...createOAuthMetadata({ provider, issuerUrl: publicUrl }),
    token_endpoint_auth_methods_supported: ["none"],
    client_id_metadata_document_supported: true
  }
  app.get("/.well-known/oauth-authorization-server", (_req, res) => {
    res.set({ "access-control-allow-origin": "*", "cache-control": "public, max-age=3600" }).json(metadata)
  })
  // The same headers on every answer of the consent flow, the SDK's refusals included.
  app.use(["/authorize", "/consent"], (_req, res, next) => {
    res.set(consentHeaders)
    next()
  })
  app.use(mcpAuthRouter({
    provider,
    issuerUrl: publicUrl,
    resourceServerUrl: resource,
    resourceName: "Relay",
    clientRegistrationOptions: {
      clientIdGeneration: false,
      rateLimit: perClient(3_600_000, settings.registrationsPerPeerHour)
    },
    authorizationOptions: { rateLimit: perClient(15 * 60_000, 100) },
    tokenOptions: { rateLimit: perClient(15 * 60_000, 50) },
    revocationOptions: { rateLimit: perClient(15 * 60_000, 50) }
  }))

  const refuse = (res: Response, status: number, message: string) =>
    void res.status(status).type("html").send(refusalPage(message))

  const consent = async (req: Request, res: Response) => {
    // A form posted from another site is refused: the page is the only place a person approves.
    // `null` is what a browser sends from a page that hides its origin, or from a sandbox: not this page.
    const origin = req.headers.origin
    if (origin !== undefined && origin !== publicUrl.origin) return refuse(res, 403, "Approve on Relay's own page.")
    const body = req.body as unknown
    const clientId = field(body, "client_id")
    const redirectUri = field(body, "redirect_uri")
    const challenge = field(body, "code_challenge")
    const state = field(body, "state")
    const client = await findClient(clientId)
    // Checked again: the form's fields are the browser's, and a redirect to an unregistered address
    // would hand the code to whoever chose it (open redirect).
    if (client === null || !client.redirectUris.some((registered) => redirectUriMatches(redirectUri, registered))) {
      return refuse(res, 400, "Unknown client or redirect URI: start again from the client.")
    }
    if (field(body, "resource") !== resource.href || !/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) {
      return refuse(res, 400, "The request is not for this server, or has no valid code challenge.")
    }
    const back = new URL(redirectUri)
    if (state !== "") back.searchParams.set("state", state)
    back.searchParams.set("iss", publicUrl.href)
    if (field(body, "decision") !== "approve") {
      back.searchParams.set("error", "access_denied")
      return void res.status(200).type("html").send(continuePage(back.href, false))
    }
    const again = (status: number, error: string) =>
      void res.status(status).type("html").send(consentPage({
        clientName: client.name,
        ...(client.host === undefined ? {} : { clientHost: client.host }),
        fields: {
          client_id: clientId,
          redirect_uri: redirectUri,
          code_challenge: challenge,
          state,
          resource: resource.href
        },
        error
      }))
    const caller = await run(tokens.verify(field(body, "relay_token")))
    // An approver token is a person's alone: it never lets an assistant in.
    if (caller === null) return again(401, "That Relay token was not accepted (wrong, or revoked).")
    if (caller.approver) return again(401, "An approver token cannot connect an assistant; use a token made for one.")
    const kept = isDocumentClient(clientId)
      ? client
      : await run(store.approveClient(client, { maxClients: settings.maxClients, idleMillis: pendingMillis }))
    if (kept === null) {
      return again(503, "Relay has as many connected clients as it keeps (RELAY_OAUTH_MAX_CLIENTS); ask its admin.")
    }
    const code = newSecret("")
    const at = await run(Clock.currentTimeMillis)
    await run(store.saveCode(
      hashToken(code),
      { clientId, redirectUri, challenge, resource: resource.href, tokenId: caller.tokenId },
      at + codeTtlMillis
    ))
    back.searchParams.set("code", code)
    res.status(200).type("html").send(continuePage(back.href, true))
  }
  app.post("/consent", express.urlencoded({ extended: false, limit: "16kb" }), (req, res) => {
    consent(req, res).catch(() => {
      if (!res.headersSent) res.status(503).set("retry-after", "2").type("html").send(refusalPage("Try again shortly."))
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
