const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/**
 * Every answer of the consent flow (the page, the page again after a refused token, the page that
 * hands the answer back, every refusal) carries these: no framing (clickjacking an Approve), no
 * script at all, forms posted only to Relay itself, the real Origin on the form's POST (a browser
 * sends `Origin: null` under `no-referrer`), no referrer to the client's site, and nothing cached.
 */
export const consentHeaders: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store"
}

const head = (title: string, extra = "") =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>${extra}
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}
input[type=password]{width:100%;padding:.5rem;font:inherit}button{font:inherit;padding:.5rem 1rem;margin:.5rem .5rem 0 0}
.error{color:#a00}.warn{background:#fff3cd;padding:.5rem}.small{color:#555;font-size:.9rem}</style></head>`

const isLoopback = (uri: string) => {
  if (!URL.canParse(uri)) return false
  const host = new URL(uri).hostname
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]"
}

/**
 * The page a person approves a client on: they paste a Relay token (from `npm run token`), and the
 * client then acts as that token (its name, workspace, read-only flag). The client's name is its own
 * claim (at registration, or in its metadata document), so the page says so, shows the host the
 * client is known by and where the answer goes, and warns when that is this very machine.
 */
export const consentPage = (options: {
  readonly clientName: string
  /** The host of a client known by its metadata document's URL (CIMD); none for a registered one. */
  readonly clientHost?: string
  readonly fields: Readonly<Record<string, string>>
  readonly error?: string
}) => {
  const hidden = Object.entries(options.fields)
    .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`)
    .join("\n      ")
  const redirect = options.fields.redirect_uri ?? ""
  const host = options.clientHost === undefined ? "" : ` from <strong>${escape(options.clientHost)}</strong>`
  const local = isLoopback(redirect)
    ? `<p class="warn">The answer goes to a program on the computer this browser runs on. Approve only if you ` +
      `started that program yourself.</p>`
    : ""
  return `${head("Connect to Relay")}
<body>
  <h1>Connect to Relay</h1>
  <p>The client calling itself <strong>${escape(options.clientName)}</strong>${host} asks to use Relay as you.</p>
  <p class="small">It will read and write the memory your Relay token reaches, under that token's name,
  until you revoke the token. The answer goes to <code>${escape(redirect)}</code>.</p>
  ${local}
  ${options.error === undefined ? "" : `<p class="error">${escape(options.error)}</p>`}
  <form method="post" action="/consent">
      ${hidden}
    <label>Your Relay token<br><input type="password" name="relay_token" autocomplete="off" required></label>
    <button type="submit" name="decision" value="approve">Approve</button>
    <button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
  </form>
</body></html>
`
}

/**
 * The answer to the consent form: a page that sends the browser on to the client's redirect URI
 * (with the code, or the refusal). Not a 302: a browser checks the page's `form-action` on every
 * redirect that follows a form's POST, and a client's callback is on another origin and often
 * redirects on to an app's own scheme (`claude://`, `cursor://`), which no `form-action` list could
 * name ahead. The refresh is a new navigation, outside the form's submission; the link is for a
 * browser that asks first before it opens an app.
 */
export const continuePage = (to: string, approved: boolean) => {
  // A quote would end the refresh's URL early; %27 means the same to the client.
  const target = escape(to.replace(/'/g, "%27"))
  return `${head("Connect to Relay", `\n<meta http-equiv="refresh" content="0; url='${target}'">`)}
<body>
  <h1>${approved ? "Approved" : "Denied"}</h1>
  <p>Returning to the client. If nothing happens, <a href="${target}">continue</a>.</p>
</body></html>
`
}

/** A refusal in the consent flow: plain text would be rendered by a browser anyway; this is the same, escaped. */
export const refusalPage = (message: string) =>
  `${head("Connect to Relay")}
<body><h1>Cannot connect</h1><p class="error">${escape(message)}</p></body></html>
`
