import { readFileSync } from "node:fs"
import type { IncomingMessage, ServerResponse } from "node:http"
import { join } from "node:path"
import { packageDir } from "../packageDir.js"
import { studioApi } from "./studioApi.js"
import { studioEvents } from "./studioEvents.js"
import { sendJson, sendText } from "./studioReplies.js"
import { sessionCookie, type StudioSessions, StudioUnavailable, type StudioWorkspace } from "./studioSessions.js"

/**
 * Relay Studio's routes, all under `/studio`: the page and its two bundled assets, the sign-in, the
 * read-only JSON API and the live event stream. Mounted by `npm run studio` (a laptop: signed in by
 * the one-time URL it prints) and by `relay --http` (team mode: signed in with a token, which shows
 * that token's workspace only). Every request passes the same Host and Origin checks as the MCP
 * endpoint first; nothing here writes to the memory.
 */
/** `value` for a StudioUnavailable rejection; any other is passed on. */
const whenUnavailable = <const V>(value: V) => (e: unknown): V => {
  if (e instanceof StudioUnavailable) return value
  throw e
}

export const studioBase = "/studio"

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
const assets = {
  "app.js": { type: "text/javascript; charset=utf-8", body: readAsset("app.js") },
  "app.css": { type: "text/css; charset=utf-8", body: readAsset("app.css") }
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
  readonly allowedOrigins: ReadonlyArray<string>
  /** Team mode: a bearer token to the workspace it reaches (null: not a valid token). Laptop: undefined. */
  readonly signIn?: (token: string) => Promise<StudioWorkspace | null>
  /** Laptop mode: the workspace a spent login secret opens. */
  readonly local?: StudioWorkspace
  /** The session cookie is `Secure` (team mode with an https RELAY_PUBLIC_URL). */
  readonly secureCookies?: boolean
}

const readForm = (req: IncomingMessage, max: number) =>
  new Promise<URLSearchParams | null>((resolve) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => {
      body += chunk
      if (body.length > max) {
        resolve(null)
        req.destroy()
      }
    })
    req.on("end", () => resolve(new URLSearchParams(body)))
    req.on("error", () => resolve(null))
  })

/** Whether the request is the studio's; answers it when it is. */
export const handleStudio = async (
  req: IncomingMessage,
  res: ServerResponse,
  allowedHosts: ReadonlyArray<string>,
  options: StudioOptions
): Promise<boolean> => {
  const url = new URL(req.url ?? "/", "http://studio.invalid")
  const path = url.pathname
  if (path !== studioBase && !path.startsWith(`${studioBase}/`)) return false
  const host = req.headers.host
  if (host === undefined || !allowedHosts.includes(host)) {
    sendJson(res, 403, { error: { code: "forbidden", message: "Host not allowed" } })
    return true
  }
  const origin = req.headers.origin
  const sameOrigin = origin === `http://${host}` || origin === `https://${host}`
  if (origin !== undefined && !sameOrigin && !options.allowedOrigins.includes(origin)) {
    sendJson(res, 403, { error: { code: "forbidden", message: "Origin not allowed" } })
    return true
  }
  const rest = path.slice(studioBase.length)
  if (req.method === "POST" && rest === "/login" && options.signIn !== undefined) {
    // A sign-in form posted from another site must not log a browser in (login CSRF): the studio's
    // own page sends its real Origin (Referrer-Policy same-origin); none, or `null`, is not that page.
    if (!sameOrigin) {
      sendJson(res, 403, { error: { code: "forbidden", message: "sign in from the studio page" } })
      return true
    }
    const form = await readForm(req, 4096)
    const token = form?.get("token")?.trim() ?? ""
    const workspace = token === "" ? null : await options.signIn(token).catch(whenUnavailable("unavailable"))
    const id = workspace === null || workspace === "unavailable" ? null : await options.sessions.open(workspace)
    if (id === null) {
      // The page says which: a token not accepted, or a database that could not check it (try again).
      const signin = workspace === "unavailable" ? "unavailable" : "failed"
      res.writeHead(303, { location: `${studioBase}/?signin=${signin}`, "cache-control": "no-store" })
      res.end()
      return true
    }
    res.writeHead(303, {
      location: `${studioBase}/`,
      "set-cookie": sessionCookie(id, studioBase, options.secureCookies === true),
      "cache-control": "no-store"
    })
    res.end()
    return true
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    sendJson(res, 405, { error: { code: "method_not_allowed", message: "the studio is read-only" } }, { allow: "GET" })
    return true
  }
  if (rest === "") {
    res.writeHead(308, { location: `${studioBase}/` })
    res.end()
    return true
  }
  if (rest === "/") {
    sendText(res, 200, "text/html; charset=utf-8", page(options.sessions.now()))
    return true
  }
  const asset = rest.startsWith("/") ? assets[rest.slice(1) as keyof typeof assets] : undefined
  if (asset !== undefined) {
    sendText(res, 200, asset.type, asset.body)
    return true
  }
  if (rest === "/login" && options.local !== undefined) {
    const secret = url.searchParams.get("secret") ?? ""
    const id = secret !== "" && options.sessions.spendLoginSecret(secret)
      ? await options.sessions.open(options.local)
      : null
    if (id === null) {
      sendText(
        res,
        403,
        "text/plain; charset=utf-8",
        "This login link was used already or is not valid: run npm run studio again.\n"
      )
      return true
    }
    res.writeHead(303, {
      location: `${studioBase}/`,
      "set-cookie": sessionCookie(id, studioBase, options.secureCookies === true),
      "cache-control": "no-store"
    })
    res.end()
    return true
  }
  const session = await options.sessions.get(req.headers.cookie).catch(whenUnavailable("unavailable"))
  if (session === "unavailable") {
    // As the MCP edge answers when it cannot check a token: the session is kept, nobody is signed out.
    sendJson(res, 503, {
      error: { code: "unavailable", message: "Relay cannot reach its database right now; try again shortly" },
      team: true
    }, { "retry-after": "2" })
    return true
  }
  if (session === undefined) {
    sendJson(res, 401, {
      error: {
        code: "unauthorized",
        message: options.signIn === undefined ? "open the login URL npm run studio printed" : "sign in with a token"
      },
      team: options.signIn !== undefined
    })
    return true
  }
  if (rest === "/events") {
    studioEvents(req, res, session)
    return true
  }
  if (rest.startsWith("/api/")) {
    await studioApi(rest.slice("/api/".length), url, res, session.workspace)
    return true
  }
  sendJson(res, 404, { error: { code: "not_found", message: "not found" } })
  return true
}
