import type { ServerResponse } from "node:http"

/**
 * Headers on every studio answer: a Content-Security-Policy that lets the page load only its own
 * script, style and API (no inline script, no eval, no other origin, no framing), no MIME sniffing,
 * no referrer (the login URL's secret must not leak), and no caching of memory.
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store"
}

export const sendJson = (res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...securityHeaders,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...extra
  })
  res.end(text)
}

export const sendText = (
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {}
) => {
  res.writeHead(status, {
    ...securityHeaders,
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    ...extra
  })
  res.end(body)
}
