import { Cookies, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { packageDir } from "../packageDir.js"
import { studioApi } from "./studioApi.js"
import { studioEvents } from "./studioEvents.js"
import { refuse, sendJson, sendText } from "./studioReplies.js"
import { sessionCookie, type StudioSessions, StudioUnavailable, type StudioWorkspace } from "./studioSessions.js"

/**
 * Relay Studio's routes, all under `/studio`: the page and its two bundled assets, the sign-in, the
 * read-only JSON API and the live event stream, as an @effect/platform router. Mounted by
 * `npm run studio` (a laptop: signed in by the one-time URL it prints) and by `relay --http` (team
 * mode: signed in with a token, which shows that token's workspace only), each handing a request
 * under /studio to `NodeHttpServer.makeHandler(studioApp(...))`. Every request passes the same Host
 * and Origin checks as the MCP endpoint first; nothing here writes to the memory.
 */
export const studioBase = "/studio"

/** Whether a request's URL (path and query) is the studio's. */
export const isStudioUrl = (url: string) =>
  url === studioBase || url.startsWith(`${studioBase}/`) || url.startsWith(`${studioBase}?`)

// Where build-studio.mjs writes them, found from the package's folder: the same from dist/server.js,
// a CLI's bundle or src/ (a test serving the studio in its own process).
const assetDir = join(packageDir, "dist", "studio", "assets")
const readAsset = (name: string) => {
  try {
    return readFileSync(join(assetDir, name))
  } catch {
    return Buffer.from(`/* ${name} is missing: run npm run build */`)
  }
}
const asset = (name: string, type: string) => {
  const body = readAsset(name)
  return Effect.sync(() => sendText(200, type, body))
}

/** The page, stamped with the host's Clock: the page's time slider and refresh pacing run from it. */
const page = (now: number) =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Relay Studio</title><link rel="stylesheet" href="${studioBase}/app.css"></head>
<body data-now="${now}"><div id="app"></div><script src="${studioBase}/app.js"></script></body></html>
`

export interface StudioOptions {
  readonly sessions: StudioSessions
  /** The Host headers the server answers to (known once it listens). */
  readonly allowedHosts: () => ReadonlyArray<string>
  readonly allowedOrigins: ReadonlyArray<string>
  /** Team mode: a bearer token to the workspace it reaches (null: not a valid token). Laptop: undefined. */
  readonly signIn?: (token: string) => Effect.Effect<StudioWorkspace | null, StudioUnavailable>
  /** Laptop mode: the workspace a spent login secret opens. */
  readonly local?: StudioWorkspace
  /** The session cookie is `Secure` (team mode with an https RELAY_PUBLIC_URL). */
  readonly secureCookies?: boolean
}

const signedInAs = (options: StudioOptions, id: string) =>
  HttpServerResponse.empty({
    status: 303,
    headers: { location: `${studioBase}/`, "cache-control": "no-store" },
    cookies: Cookies.fromIterable([sessionCookie(id, studioBase, options.secureCookies === true)])
  })

const formMaxBytes = 4096

/** The team sign-in: a token typed into the page's form, answered with a session cookie or back to the form. */
const signInRoute = (options: StudioOptions, signIn: NonNullable<StudioOptions["signIn"]>) =>
  Effect.gen(function*() {
    const req = yield* HttpServerRequest.HttpServerRequest
    // A sign-in form posted from another site must not log a browser in (login CSRF): the studio's
    // own page sends its real Origin (Referrer-Policy same-origin); none, or `null`, is not that page.
    if (!isSameOrigin(req)) return refuse(403, "forbidden", "sign in from the studio page")
    const form = yield* req.urlParamsBody.pipe(
      HttpServerRequest.withMaxBodySize(Option.some(formMaxBytes)),
      Effect.orElseSucceed(() => [])
    )
    const token = form.find(([k]) => k === "token")?.[1]?.trim() ?? ""
    const workspace = token === "" ? null : yield* signIn(token).pipe(
      Effect.catchTag("StudioUnavailable", () => Effect.succeed("unavailable" as const))
    )
    const id = workspace === null || workspace === "unavailable" ? null : yield* options.sessions.open(workspace)
    if (id !== null) return signedInAs(options, id)
    // The page says which: a token not accepted, or a database that could not check it (try again).
    const signin = workspace === "unavailable" ? "unavailable" : "failed"
    return HttpServerResponse.empty({
      status: 303,
      headers: { location: `${studioBase}/?signin=${signin}`, "cache-control": "no-store" }
    })
  })

/** The laptop's sign-in: the printed link's one-time secret. */
const loginLinkRoute = (options: StudioOptions, local: StudioWorkspace) =>
  Effect.gen(function*() {
    const secret = (yield* HttpServerRequest.ParsedSearchParams)["secret"]
    const id = typeof secret === "string" && secret !== "" && options.sessions.spendLoginSecret(secret)
      ? yield* options.sessions.open(local)
      : null
    if (id !== null) return signedInAs(options, id)
    return sendText(
      403,
      "text/plain; charset=utf-8",
      "This login link was used already or is not valid: run npm run studio again.\n"
    )
  })

const isSameOrigin = (req: HttpServerRequest.HttpServerRequest) => {
  const { host, origin } = req.headers
  return origin === `http://${host}` || origin === `https://${host}`
}

/** Runs `route` for a signed-in session; 401 without one, 503 (the session kept) when the database cannot say. */
const signedIn = <E, R>(
  options: StudioOptions,
  route: (session: NonNullable<Effect.Effect.Success<ReturnType<StudioSessions["get"]>>>) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E,
    R
  >
) =>
  Effect.gen(function*() {
    const req = yield* HttpServerRequest.HttpServerRequest
    const session = yield* options.sessions.get(req.cookies).pipe(
      Effect.catchTag("StudioUnavailable", () => Effect.succeed("unavailable" as const))
    )
    if (session === "unavailable") {
      // As the MCP edge answers when it cannot check a token: the session is kept, nobody is signed out.
      return sendJson(503, {
        error: { code: "unavailable", message: "Relay cannot reach its database right now; try again shortly" },
        team: true
      }, { "retry-after": "2" })
    }
    if (session === undefined) {
      return sendJson(401, {
        error: {
          code: "unauthorized",
          message: options.signIn === undefined ? "open the login URL npm run studio printed" : "sign in with a token"
        },
        team: options.signIn !== undefined
      })
    }
    return yield* route(session)
  })

/**
 * The studio as an HttpApp. Routes match GET (and HEAD); anything else is 405, and a GET that no
 * route matches is 404 for a signed-in session (401 before, so nothing tells what exists).
 */
export const studioApp = (options: StudioOptions) => {
  const { signIn, local } = options
  let router = HttpRouter.empty.pipe(
    HttpRouter.get(studioBase, HttpServerResponse.empty({ status: 308, headers: { location: `${studioBase}/` } })),
    HttpRouter.get(
      `${studioBase}/`,
      Effect.map(
        Effect.clockWith((c) => c.currentTimeMillis),
        (now) => sendText(200, "text/html; charset=utf-8", page(now))
      )
    ),
    HttpRouter.get(`${studioBase}/app.js`, asset("app.js", "text/javascript; charset=utf-8")),
    HttpRouter.get(`${studioBase}/app.css`, asset("app.css", "text/css; charset=utf-8")),
    HttpRouter.get(`${studioBase}/events`, signedIn(options, studioEvents)),
    HttpRouter.get(
      `${studioBase}/api/*`,
      signedIn(options, (session) =>
        Effect.flatMap(
          HttpRouter.RouteContext,
          (route) => studioApi(route.params["*"] ?? "", session.workspace)
        ))
    )
  )
  if (signIn !== undefined) router = HttpRouter.post(router, `${studioBase}/login`, signInRoute(options, signIn))
  if (local !== undefined) router = HttpRouter.get(router, `${studioBase}/login`, loginLinkRoute(options, local))
  const elsewhere = Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (req) =>
      req.method !== "GET" && req.method !== "HEAD"
        ? Effect.succeed(refuse(405, "method_not_allowed", "the studio is read-only", { allow: "GET" }))
        : signedIn(options, () => Effect.succeed(refuse(404, "not_found", "not found")))
  )
  return Effect.gen(function*() {
    const req = yield* HttpServerRequest.HttpServerRequest
    const host = req.headers.host
    if (host === undefined || !options.allowedHosts().includes(host)) {
      return refuse(403, "forbidden", "Host not allowed")
    }
    const origin = req.headers.origin
    if (origin !== undefined && !isSameOrigin(req) && !options.allowedOrigins.includes(origin)) {
      return refuse(403, "forbidden", "Origin not allowed")
    }
    // `/studio` (a redirect) and `/studio/` (the page) are two routes.
    return yield* router.pipe(
      HttpRouter.withRouterConfig({ ignoreTrailingSlash: false }),
      Effect.catchTag("RouteNotFound", () => elsewhere)
    )
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.as(
        Effect.logError("relay studio: request failed", cause),
        refuse(503, "unavailable", "try again")
      )
    )
  )
}
