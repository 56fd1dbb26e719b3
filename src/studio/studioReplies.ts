import { HttpServerResponse } from "@effect/platform"

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

export const sendText = (
  status: number,
  contentType: string,
  body: string | Uint8Array,
  extra: Record<string, string> = {}
) =>
  typeof body === "string"
    ? HttpServerResponse.text(body, { status, contentType, headers: { ...securityHeaders, ...extra } })
    : HttpServerResponse.uint8Array(body, { status, contentType, headers: { ...securityHeaders, ...extra } })

export const sendJson = (status: number, body: unknown, extra: Record<string, string> = {}) =>
  sendText(status, "application/json; charset=utf-8", JSON.stringify(body), extra)

/** A refusal in the studio's JSON shape. */
export const refuse = (status: number, code: string, message: string, extra: Record<string, string> = {}) =>
  sendJson(status, { error: { code, message } }, extra)
