import type { ServerResponse } from "node:http"

/**
 * Headers on every studio answer: a Content-Security-Policy that lets the page load only its own
 * script, style and API (no inline script, no eval, no other origin, no framing), no MIME sniffing,
 * the referrer only to the studio itself (the page's sign-in form then carries its real Origin, which
 * the sign-in requires: under `no-referrer` a browser sends `Origin: null`; the laptop's login secret
 * is in no page's URL, and nothing goes to another site), and no caching of memory.
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
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
