import { Effect, Schema } from "effect"
import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { type ConnectionLimits, guardConnections } from "./connectionGuard.js"
import { loopbackHosts } from "./HttpSettings.js"

class ListenFailed extends Schema.TaggedError<ListenFailed>()("ListenFailed", {
  message: Schema.String
}) {}

type Handler = (req: IncomingMessage, res: ServerResponse, allowedHosts: ReadonlyArray<string>) => void

/**
 * A Node HTTP server on `host:port` for the life of the scope. The Host headers it answers to are
 * known only once it listens (port 0 picks one), so they are handed to the handler with each request.
 * On release, `beforeClose` runs (the sessions) before the open connections are cut.
 */
export const listen = (
  options: ConnectionLimits & {
    readonly host: string
    readonly port: number
    readonly extraHosts: ReadonlyArray<string>
    readonly requestTimeoutMillis: number
    readonly headersTimeoutMillis: number
  },
  handler: Handler,
  beforeClose: Effect.Effect<unknown>
) =>
  Effect.acquireRelease(
    Effect.async<NodeServer, ListenFailed>((resume) => {
      let allowedHosts: ReadonlyArray<string> = []
      // Node checks the timeouts on an interval (30 s by default): a tenth of the shorter keeps the
      // cut near it. Node refuses a headers timeout longer than the request's.
      const headersTimeout = Math.min(options.headersTimeoutMillis, options.requestTimeoutMillis)
      const made = createServer({
        requestTimeout: options.requestTimeoutMillis,
        headersTimeout,
        connectionsCheckingInterval: Math.max(50, Math.floor(headersTimeout / 10))
      }, (req, res) => handler(req, res, allowedHosts))
      guardConnections(made, options)
      made.once("error", (e: NodeJS.ErrnoException) =>
        resume(Effect.fail(
          new ListenFailed({ message: `cannot listen on ${options.host}:${options.port} (${e.code ?? "error"})` })
        )))
      made.listen(options.port, options.host, () => {
        const port = (made.address() as AddressInfo).port
        const own = options.host.includes(":") ? `[${options.host}]:${port}` : `${options.host}:${port}`
        allowedHosts = [...new Set([...loopbackHosts(port), own, ...options.extraHosts])]
        resume(Effect.succeed(made))
      })
    }),
    (made) =>
      Effect.gen(function*() {
        // Stop taking connections first, then end the sessions, then cut what is still open.
        const closed = yield* Effect.sync(() => new Promise<void>((resolve) => made.close(() => resolve())))
        yield* beforeClose
        made.closeAllConnections()
        yield* Effect.promise(() => closed)
      })
  )

export const addressOf = (server: NodeServer) => {
  const address = server.address() as AddressInfo
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address
  return `http://${shown}:${address.port}/mcp`
}
