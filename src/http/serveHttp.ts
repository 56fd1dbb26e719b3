import { HttpMiddleware, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeHttpServerRequest } from "@effect/platform-node"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { Clock, Effect, Either, Fiber, Option, Runtime, Schedule } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { SecretScanner } from "../services/SecretScanner.js"
import { TokenStore } from "../services/TokenStore.js"
import type { WorkspaceStores } from "../services/WorkspaceStores.js"
import { makeTeamStudio } from "../studio/teamStudio.js"
import { approvalRoute, decideOverHttp, sendDecision } from "./approveTask.js"
import { trustedProxies } from "./clientAddress.js"
import { markAuthenticated } from "./connectionGuard.js"
import { readHttpSettings } from "./HttpSettings.js"
import { addressOf, listen } from "./listen.js"
import { makeModernRequests } from "./modernRequests.js"
import { makeOAuthIfSet } from "./oauth/oauthSetup.js"
import { readJson } from "./readBody.js"
import { bearer, json, rpcError, unauthorized, unavailable } from "./replies.js"
import { makeSessions } from "./sessions.js"
import { makeTokenCheck } from "./tokenCheck.js"

/**
 * An `initialize` is small; any later message, and any 2026-07-28 request (which has no handshake),
 * may be as large as the SDK's transport allows.
 */
const maxInitializeBytes = 64 * 1024
const maxMessageBytes = 4 * 1024 * 1024

/**
 * A page served from this very loopback address (`http://localhost:8787` calling `localhost:8787`):
 * same origin, so no rebinding. The Host was already checked against the allowed ones.
 */
const sameLoopbackOrigin = (origin: string, host: string) =>
  /^(localhost|127\.0\.0\.1|\[::1\]):\d+$/.test(host) && origin === `http://${host}`

/**
 * Serves the tools over Streamable HTTP at /mcp until interrupted. Every request passes, in order: the
 * Host and Origin checks (DNS rebinding), a bearer token (tokenCheck: asked of the admin graph at
 * most every RELAY_HTTP_TOKEN_RECHECK_MS), and for an open session the check that it is that token's
 * session. The token's name is the author of everything its sessions write.
 */
export const serveHttp = Effect.gen(function*() {
  const config = yield* readHttpSettings
  const tokens = yield* TokenStore
  const sessions = yield* makeSessions
  const run = Runtime.runPromise(yield* Effect.runtime<SecretScanner | WorkspaceStores>())
  const proxies = trustedProxies(config.trustedProxies)
  const oauth = yield* makeOAuthIfSet(run, proxies)
  // An OAuth access token stands for the Relay token a person signed in with; both are believed for
  // the same recheck window, so revoking the Relay token stops its OAuth tokens within it.
  const tokenCheck = yield* makeTokenCheck(
    (presented) =>
      Option.isSome(oauth) && oauth.value.isAccessToken(presented)
        ? oauth.value.verifyAccess(presented)
        : tokens.verify(presented),
    config.tokenRecheckMillis
  )
  const resourceMetadata = Option.map(oauth, (o) => o.resourceMetadataUrl)
  // Reached over https (the public URL), the studio's cookie never travels in clear.
  const secureCookies = Option.isSome(oauth) && oauth.value.publicUrl.protocol === "https:"
  // The Host headers are known once the server listens; listen.ts hands them over with each request.
  let allowedHosts: ReadonlyArray<string> = []
  const studio = yield* makeTeamStudio(tokenCheck.check, () => allowedHosts, config.allowedOrigins, secureCookies)
  const modern = makeModernRequests((error) => void run(Effect.logDebug(`relay http: 2026 request: ${error.message}`)))
  yield* Effect.addFinalizer(() => Effect.promise(() => modern.close()))
  // Sessions still being opened count against both caps: the checks and the session's record are
  // split by an await (building the workspace's store), and a burst of initializes all passed the
  // checks before any was recorded (55 sessions on a server capped at 10).
  const opening = new Map<string, number>()
  let openingTotal = 0

  const hostAllowed = (req: IncomingMessage) =>
    req.headers.host !== undefined && allowedHosts.includes(req.headers.host)

  /**
   * Everything but the studio: the raw request and response, which the SDK's transport and the OAuth
   * router take as they are. The reply is written here; the caller waits for it to be out.
   */
  const answer = (req: IncomingMessage, res: ServerResponse) =>
    Effect.gen(function*() {
      const url = req.url ?? "/"
      if (Option.isSome(oauth) && oauth.value.owns(url)) {
        // The Host check holds here too; browsers post the consent form, so its Origin is checked there.
        if (!hostAllowed(req)) {
          return rpcError(res, 403, -32000, "Host not allowed (set RELAY_HTTP_ALLOWED_HOSTS for a reverse proxy)")
        }
        return oauth.value.handle(req, res)
      }
      const approval = approvalRoute(url)
      if (approval === null && url !== "/mcp" && !url.startsWith("/mcp?")) {
        return json(res, 404, { error: "not found: Relay serves MCP at /mcp" })
      }
      // Before the token: a page in a browser must learn nothing, not even whether a token is valid.
      const host = req.headers.host
      const origin = req.headers.origin
      if (host === undefined || !hostAllowed(req)) {
        return rpcError(res, 403, -32000, "Host not allowed (set RELAY_HTTP_ALLOWED_HOSTS for a reverse proxy)")
      }
      if (origin !== undefined && !config.allowedOrigins.includes(origin) && !sameLoopbackOrigin(origin, host)) {
        return rpcError(res, 403, -32000, "Origin not allowed (see RELAY_HTTP_ALLOWED_ORIGINS)")
      }
      const presented = bearer(req.headers.authorization)
      if (presented === null) return unauthorized(res, false, resourceMetadata)
      const [verified, now] = yield* Effect.zip(tokenCheck.check(presented), Clock.currentTimeMillis)
      if (Either.isLeft(verified)) return unavailable(res)
      const caller = verified.right
      if (caller === null) return unauthorized(res, true, resourceMetadata)
      if (!markAuthenticated(req, caller.tokenId)) {
        const most = config.maxConnectionsPerToken
        return rpcError(res, 429, -32000, `too many busy connections for this token (at most ${most})`, {
          "retry-after": "1",
          connection: "close"
        })
      }
      if (approval !== null) {
        if (req.method !== "POST") return json(res, 405, { error: "approve or reject with a POST" })
        return sendDecision(res, yield* Effect.orDie(decideOverHttp(caller, approval)))
      }
      if (caller.approver) {
        return rpcError(
          res,
          403,
          -32000,
          "an approver token approves tasks (POST /tasks/<id>/approve); it opens no MCP session"
        )
      }
      const sessionId = req.headers["mcp-session-id"]
      if (typeof sessionId === "string") {
        const session = sessions.open.get(sessionId)
        // Another token's session is answered exactly as an unknown one: it must not reach that workspace.
        // It spends the token's rate limit like a call: before, a loop of them cost nothing (issue 40).
        if (session === undefined || session.caller.tokenId !== caller.tokenId) {
          const limited = yield* Effect.either(sessions.spend(caller.tokenId))
          return Either.isLeft(limited)
            ? rpcError(res, 429, -32000, `rate_limited: ${limited.left.message}`, {
              "retry-after": String(Math.ceil(limited.left.retryAfterMillis / 1000))
            })
            : rpcError(res, 404, -32001, "Session not found")
        }
        session.lastSeen = now
        session.inFlight++
        res.once("close", () => session.inFlight--)
        if (req.method !== "POST") return yield* Effect.promise(async () => session.transport.handle(req, res))
        const message = yield* Effect.promise(() => readJson(req, res, maxMessageBytes))
        return "refused" in message
          ? message.refused()
          : yield* Effect.promise(async () => session.transport.handle(req, res, message.body))
      }
      if (req.method !== "POST") return rpcError(res, 405, -32000, "start a session with a POST of initialize")
      const message = yield* Effect.promise(() =>
        readJson(req, res, modern.claimsModern(req) ? maxMessageBytes : maxInitializeBytes)
      )
      if ("refused" in message) return message.refused()
      const body = message.body
      // A 2026-07-28 request: no session, answered by a server built for it (modernRequests.ts).
      if (modern.isModern(req, body)) {
        const server = yield* sessions.requestServerFor(caller)
        return yield* Effect.promise(() => modern.serve(req, res, body, caller, server))
      }
      if (!isInitializeRequest(body)) {
        return rpcError(res, 400, -32000, "Bad Request: no mcp-session-id; start with initialize")
      }
      const openingForToken = opening.get(caller.tokenId) ?? 0
      const perToken = config.maxSessionsPerToken
      if (
        sessions.countFor(caller.tokenId) + openingForToken >= perToken &&
        !(yield* Effect.promise(() => sessions.evictIdleOf(caller.tokenId)))
      ) {
        return rpcError(res, 429, -32000, `too many busy sessions for this token (at most ${perToken})`, {
          "retry-after": "1"
        })
      }
      if (sessions.open.size + openingTotal >= config.maxSessions) {
        return rpcError(res, 503, -32000, "too many open sessions on this server; try again later", {
          "retry-after": "60"
        })
      }
      opening.set(caller.tokenId, (opening.get(caller.tokenId) ?? 0) + 1)
      openingTotal++
      return yield* Effect.gen(function*() {
        const session = yield* sessions.openSession(caller)
        void session.transport.handle(req, res, body)
        // An initialize the transport refused leaves no session behind.
        const id = session.transport.sessionId
        if (id === undefined || !sessions.open.has(id)) yield* Effect.promise(() => session.close())
      }).pipe(Effect.ensuring(Effect.sync(() => {
        const left = (opening.get(caller.tokenId) ?? 1) - 1
        if (left === 0) opening.delete(caller.tokenId)
        else opening.set(caller.tokenId, left)
        openingTotal--
      })))
    }).pipe(
      Effect.catchAllCause((cause) =>
        // A session that could not be opened (its workspace's store) or a transport that threw.
        Effect.zipRight(Effect.logError("relay http: request failed", cause), Effect.sync(() => unavailable(res)))
      )
    )

  /** Until the response is out (or its connection gone): the platform then writes nothing more. */
  const sent = (res: ServerResponse) =>
    Effect.async<void>((resume) => {
      if (res.writableEnded || res.destroyed) return resume(Effect.void)
      const done = () => resume(Effect.void)
      res.once("finish", done)
      res.once("close", done)
    })

  const route = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const res = NodeHttpServerRequest.toServerResponse(request)
    // As before the router: a request is answered to its end even when its client goes away (the
    // platform interrupts the route's fiber then, not this one; what it forks stays interruptible).
    yield* Fiber.join(yield* Effect.forkDaemon(answer(NodeHttpServerRequest.toIncomingMessage(request), res)))
    yield* sent(res)
    return HttpServerResponse.empty()
  })
  // Relay Studio (src/studio) at /studio: its own sign-in, Host and Origin checks, read-only.
  const router = HttpRouter.empty.pipe(
    HttpRouter.all("/studio", studio.app),
    HttpRouter.all("/studio/*", studio.app),
    HttpRouter.all("*", route),
    // A request target the router does not parse as a path (absolute-form, `*`): the 404 of /mcp's handler.
    Effect.catchTag("RouteNotFound", () => route)
  )
  const handler = yield* NodeHttpServer.makeHandler(router).pipe(
    // Relay has no tracer: no span a request.
    Effect.locally(HttpMiddleware.currentTracerDisabledWhen, () => true)
  )
  const handle = (req: IncomingMessage, res: ServerResponse, hosts: ReadonlyArray<string>) => {
    allowedHosts = hosts
    handler(req, res)
  }

  // The public name is a Host the server answers to.
  const hosts = Option.match(oauth, {
    onNone: () => config.extraHosts,
    onSome: (o) => [...config.extraHosts, o.publicHost]
  })
  const server = yield* listen({ ...config, extraHosts: hosts }, handle, sessions.closeAll)
  yield* Effect.logInfo(`relay MCP server ready on ${addressOf(server)}`)

  // Sessions a client never closed are closed after RELAY_HTTP_SESSION_IDLE_MINUTES without a request.
  const sweep = sessions.closeIdle(config.sessionIdleMinutes * 60_000)
  yield* Effect.repeat(sweep, Schedule.spaced("1 minute"))
  return yield* Effect.never
})
