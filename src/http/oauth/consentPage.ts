const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/**
 * The page a person approves a client on: they paste a Relay token (from `npm run token`), and the
 * client then acts as that token (its name, workspace, read-only flag). The client's name is its own
 * claim at registration, so the page says so and shows where the answer goes.
 */
export const consentPage = (options: {
  readonly clientName: string
  readonly fields: Readonly<Record<string, string>>
  readonly error?: string
}) => {
  const hidden = Object.entries(options.fields)
    .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`)
    .join("\n      ")
  const redirect = options.fields.redirect_uri ?? ""
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Connect to Relay</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}
input[type=password]{width:100%;padding:.5rem;font:inherit}button{font:inherit;padding:.5rem 1rem;margin:.5rem .5rem 0 0}
.error{color:#a00}.small{color:#555;font-size:.9rem}</style></head>
<body>
  <h1>Connect to Relay</h1>
  <p>The client calling itself <strong>${escape(options.clientName)}</strong> asks to use Relay as you.</p>
  <p class="small">It will read and write the memory your Relay token reaches, under that token's name,
  until you revoke the token. The answer goes to <code>${escape(redirect)}</code>.</p>
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
