import { Config, Option } from "effect"
import { positiveSetting as positive } from "../../layers/assembly/positiveSetting.js"

/**
 * OAuth 2.1 for hosted connectors, on when RELAY_PUBLIC_URL is set: the https address clients reach
 * Relay at (behind a TLS proxy), which is the issuer and, with /mcp, the resource every token is for.
 */
export const readOAuthSettings = Config.all({
  publicUrl: Config.option(
    Config.string("RELAY_PUBLIC_URL").pipe(
      Config.validate({
        message: "RELAY_PUBLIC_URL must be an https:// URL with no path, query or fragment (http:// only for " +
          "localhost or 127.0.0.1)",
        validation: (s) => {
          if (!URL.canParse(s)) return false
          const u = new URL(s)
          const local = u.hostname === "localhost" || u.hostname === "127.0.0.1"
          return (u.protocol === "https:" || (u.protocol === "http:" && local)) && u.pathname === "/" &&
            u.search === "" && u.hash === ""
        }
      })
    )
  ),
  accessTtlSeconds: positive("RELAY_OAUTH_ACCESS_TTL_SECONDS", 3600),
  refreshTtlDays: positive("RELAY_OAUTH_REFRESH_TTL_DAYS", 30),
  /** Approved clients kept at most (a registration nobody approved is kept nowhere: pendingClients.ts). */
  maxClients: positive("RELAY_OAUTH_MAX_CLIENTS", 1000),
  /** Registrations one client address may make an hour (behind a proxy: RELAY_HTTP_TRUSTED_PROXIES). */
  registrationsPerPeerHour: positive("RELAY_OAUTH_REGISTRATIONS_PER_PEER_HOUR", 20),
  /** A registration no person approved within this is no longer accepted. */
  pendingClientMinutes: positive("RELAY_OAUTH_PENDING_CLIENT_MINUTES", 30),
  /**
   * Hosts (`host:port`) whose client metadata documents may be fetched though they resolve to a
   * private or loopback address, and over plain http: tests, and a private deployment's own clients.
   */
  clientDocumentHosts: Config.string("RELAY_OAUTH_CLIENT_DOCUMENT_HOSTS").pipe(
    Config.withDefault(""),
    Config.map((s) => s.split(",").map((x) => x.trim()).filter((x) => x !== ""))
  )
}).pipe(Config.map((s) => ({ ...s, publicUrl: Option.map(s.publicUrl, (u) => new URL(u)) })))

export type OAuthSettings = Config.Config.Success<typeof readOAuthSettings>
