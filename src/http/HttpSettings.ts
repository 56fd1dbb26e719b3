import { Config } from "effect"
import { isProxyEntry } from "./clientAddress.js"

const list = (name: string) =>
  Config.string(name).pipe(
    Config.withDefault(""),
    Config.map((s) => s.split(",").map((x) => x.trim()).filter((x) => x !== ""))
  )

export const readHttpSettings = Config.all({
  host: Config.string("RELAY_HTTP_HOST").pipe(Config.withDefault("127.0.0.1")),
  // 0 picks a free port (tests): the one chosen is in the "ready" log line.
  port: Config.integer("RELAY_HTTP_PORT").pipe(
    Config.withDefault(8787),
    Config.validate({
      message: "RELAY_HTTP_PORT must be a port number (0 picks a free one)",
      validation: (n) => n >= 0 && n < 65536
    })
  ),
  /** Host headers accepted besides the bound address itself: the public name behind a reverse proxy. */
  extraHosts: list("RELAY_HTTP_ALLOWED_HOSTS"),
  /** Browser origins allowed to call; a request with any other Origin header is refused. */
  allowedOrigins: list("RELAY_HTTP_ALLOWED_ORIGINS"),
  /**
   * Addresses or CIDR ranges of the reverse proxies in front of Relay: from these peers the client's
   * address is read from X-Forwarded-For (clientAddress.ts), so per-address limits count clients, not
   * the proxy. Empty: every peer is the client itself.
   */
  trustedProxies: list("RELAY_HTTP_TRUSTED_PROXIES").pipe(
    Config.validate({
      message: "RELAY_HTTP_TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges",
      validation: (entries) => entries.every(isProxyEntry)
    })
  ),
  sessionIdleMinutes: Config.integer("RELAY_HTTP_SESSION_IDLE_MINUTES").pipe(
    Config.withDefault(30),
    Config.validate({
      message: "RELAY_HTTP_SESSION_IDLE_MINUTES must be a positive whole number",
      validation: (n) => n > 0
    })
  ),
  /**
   * How long a token the database accepted is believed before it is asked about again: a revoked
   * token stops within this time. 0 asks on every request (a database round trip each).
   */
  tokenRecheckMillis: Config.integer("RELAY_HTTP_TOKEN_RECHECK_MS").pipe(
    Config.withDefault(5000),
    Config.validate({
      message: "RELAY_HTTP_TOKEN_RECHECK_MS must be a whole number of milliseconds from 0 to 60000",
      validation: (n) => n >= 0 && n <= 60_000
    })
  ),
  /**
   * A request's headers and body must arrive within this, or the connection is answered 408 and
   * closed: a client that opens connections and sends nothing, or a byte at a time, holds none for long.
   */
  requestTimeoutMillis: Config.integer("RELAY_HTTP_REQUEST_TIMEOUT_MS").pipe(
    Config.withDefault(30_000),
    Config.validate({
      message: "RELAY_HTTP_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000",
      validation: (n) => n >= 100 && n <= 600_000
    })
  ),
  /**
   * A request's headers must arrive within this (and within the request timeout): a connection that
   * trickles them is answered 408 and closed well before it could matter.
   */
  headersTimeoutMillis: Config.integer("RELAY_HTTP_HEADERS_TIMEOUT_MS").pipe(
    Config.withDefault(5000),
    Config.validate({
      message: "RELAY_HTTP_HEADERS_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000",
      validation: (n) => n >= 100 && n <= 600_000
    })
  ),
  /** Connections one peer address may have still sending headers; one more closes its oldest (connectionGuard.ts). */
  maxPendingPerPeer: Config.integer("RELAY_HTTP_MAX_PENDING_PER_PEER").pipe(
    Config.withDefault(64),
    Config.validate({
      message: "RELAY_HTTP_MAX_PENDING_PER_PEER must be a positive whole number",
      validation: (n) => n > 0
    })
  ),
  /**
   * Open connections at most (well under a process's usual 1,024 files); at the cap a new one closes
   * the oldest still sending headers, else an idle one of the token holding the most, never one with
   * a request in flight (connectionGuard.ts).
   */
  maxConnections: Config.integer("RELAY_HTTP_MAX_CONNECTIONS").pipe(
    Config.withDefault(512),
    Config.validate({
      message: "RELAY_HTTP_MAX_CONNECTIONS must be a positive whole number",
      validation: (n) => n > 0
    })
  ),
  /**
   * Open connections one peer address may hold (connectionGuard.ts); one more closes that peer's oldest
   * still sending headers or idle. Behind a reverse proxy every client is the proxy's address: raise it.
   */
  maxConnectionsPerPeer: Config.integer("RELAY_HTTP_MAX_CONNECTIONS_PER_PEER").pipe(
    Config.withDefault(256),
    Config.validate({
      message: "RELAY_HTTP_MAX_CONNECTIONS_PER_PEER must be a positive whole number",
      validation: (n) => n > 0
    })
  ),
  /**
   * Open connections that carried one token's requests; one more closes that token's oldest idle one,
   * or is answered 429 and closed when all are busy (connectionGuard.ts).
   */
  maxConnectionsPerToken: Config.integer("RELAY_HTTP_MAX_CONNECTIONS_PER_TOKEN").pipe(
    Config.withDefault(64),
    Config.validate({
      message: "RELAY_HTTP_MAX_CONNECTIONS_PER_TOKEN must be a positive whole number",
      validation: (n) => n > 0
    })
  ),
  maxSessions: Config.integer("RELAY_HTTP_MAX_SESSIONS").pipe(
    Config.withDefault(1000),
    Config.validate({
      message: "RELAY_HTTP_MAX_SESSIONS must be a positive whole number",
      validation: (n) => n > 0
    })
  ),
  /** A token's open sessions at most; a new one closes that token's least recently used idle session. */
  maxSessionsPerToken: Config.integer("RELAY_HTTP_MAX_SESSIONS_PER_TOKEN").pipe(
    Config.withDefault(32),
    Config.validate({
      message: "RELAY_HTTP_MAX_SESSIONS_PER_TOKEN must be a positive whole number",
      validation: (n) => n > 0
    })
  )
})

/** The Host headers a loopback server answers to, for the port it actually listens on. */
export const loopbackHosts = (port: number) => [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]
