/** A client's redirect URIs at most: a web callback, a desktop app's, a loopback one, with room to spare. */
export const maxRedirectUris = 4
/** Characters one redirect URI may have. */
export const maxRedirectUriLength = 512

const loopbackHosts = new Set(["127.0.0.1", "[::1]", "localhost"])

/**
 * Schemes a browser or the system handles itself: an answer sent there runs in the browser
 * (`javascript:`, `data:`), reads local files, or goes to whoever the address names; none is an app's own.
 */
const refusedSchemes = new Set([
  "about",
  "blob",
  "chrome",
  "chrome-extension",
  "data",
  "file",
  "filesystem",
  "ftp",
  "intent",
  "javascript",
  "jar",
  "mailto",
  "moz-extension",
  "sms",
  "tel",
  "view-source",
  "vbscript",
  "ws",
  "wss"
])

/**
 * Why a redirect URI is refused, or null when it is acceptable (RFC 8252, OAuth 2.1 §2.3): https;
 * http only to this machine's loopback (a native app's local listener, any port at authorization);
 * or an app's private-use scheme, which RFC 8252 asks to be a reverse domain name (`com.example.app:`)
 * and which desktop clients also register as a single word (`cursor://`), so a single word is kept
 * unless a browser or the system handles that scheme itself. Never a fragment (RFC 6749 §3.1.2).
 */
export const redirectUriProblem = (uri: string): string | null => {
  if (uri.length > maxRedirectUriLength) return `is longer than ${maxRedirectUriLength} characters`
  if (!URL.canParse(uri)) return "is not a URL"
  const u = new URL(uri)
  const scheme = u.protocol.slice(0, -1).toLowerCase()
  if (u.hash !== "" || uri.includes("#")) return "has a fragment"
  if (u.username !== "" || u.password !== "") return "carries a user name or password"
  if (scheme === "https") return null
  if (scheme === "http") return loopbackHosts.has(u.hostname) ? null : "is http to a host other than loopback"
  if (refusedSchemes.has(scheme)) return `uses the ${scheme}: scheme, which is not an app's own`
  if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) return "has a malformed scheme"
  return null
}

/** The first problem of a client's list of redirect URIs, named for the message, or null. */
export const redirectUrisProblem = (uris: ReadonlyArray<string>): string | null => {
  if (uris.length === 0) return "redirect_uris is empty"
  if (uris.length > maxRedirectUris) return `redirect_uris has more than ${maxRedirectUris} entries`
  for (const uri of uris) {
    const problem = redirectUriProblem(uri)
    if (problem !== null) return `redirect_uri ${JSON.stringify(uri.slice(0, 80))} ${problem}`
  }
  return null
}
