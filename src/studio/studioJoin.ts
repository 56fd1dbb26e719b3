import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { randomBytes, timingSafeEqual } from "node:crypto"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { refuse, sendJson } from "./studioReplies.js"
import { studioBase } from "./studioServer.js"

/**
 * A second `npm run studio` joins the studio already running on its port instead of failing: the
 * running one keeps a random key in a file only this user can read (`studio-<port>.key` in the data
 * directory) and answers a loopback `POST /studio/link` that carries the key with a new one-time
 * login link. Reading the file is being this user on this machine, as running the command is; a
 * browser page can neither read it nor send the request (it has an Origin, refused here).
 */
export const linkPath = `${studioBase}/link`
const keyHeader = "x-relay-studio-key"

const keyFile = (dataDir: string, port: number) => join(dataDir, `studio-${port}.key`)

/** Writes this studio's key for `port`; the returned function removes it (at shutdown). */
export const publishKey = (dataDir: string, port: number) => {
  const key = randomBytes(32).toString("hex")
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const file = keyFile(dataDir, port)
  writeFileSync(file, key, { mode: 0o600 })
  return { key, remove: () => rmSync(file, { force: true }) }
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** Answers `POST /studio/link` (route it only that path): a login URL for the right key, 403 otherwise. */
export const answerLink = (
  options: {
    readonly key: () => string
    readonly allowedHosts: () => ReadonlyArray<string>
    readonly newLink: () => string
  }
) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (req) => {
    const given = req.headers[keyHeader]
    const host = req.headers.host
    const allowed = req.method === "POST" && req.headers.origin === undefined && host !== undefined &&
      options.allowedHosts().includes(host) && typeof given === "string" && same(given, options.key())
    return allowed ? sendJson(200, { url: options.newLink() }) : refuse(403, "forbidden", "not this studio's key")
  })

/** A new login link from the studio running on `port`, or null when none answers to this user's key. */
export const askForLink = async (dataDir: string, port: number): Promise<string | null> => {
  let key: string
  try {
    key = readFileSync(keyFile(dataDir, port), "utf8").trim()
  } catch {
    return null
  }
  try {
    const reply = await fetch(`http://127.0.0.1:${port}${linkPath}`, {
      method: "POST",
      headers: { [keyHeader]: key },
      signal: AbortSignal.timeout(5000)
    })
    if (!reply.ok) return null
    const body = await reply.json() as { url?: unknown }
    return typeof body.url === "string" ? body.url : null
  } catch {
    return null
  }
}
