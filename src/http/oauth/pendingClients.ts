import { createHmac, timingSafeEqual } from "node:crypto"
import type { OAuthClient } from "../../services/OAuthStore.js"

/**
 * A registration (RFC 7591) that no person has approved yet is kept nowhere: its client_id carries
 * the registered name and redirect URIs, signed with the admin graph's registration key, and the
 * time it was made. Any number of registrations therefore cost no storage and crowd out nobody; an
 * unapproved one stops being accepted `pendingMillis` after it was made, and the first approval on
 * the consent page stores the client (OAuthStore.approveClient) for good. The signature is what
 * makes the name and redirect URIs the registrant's, unchanged: only Relay could have made it.
 */
const prefix = "rc1."

interface Claims {
  readonly n: string
  readonly r: ReadonlyArray<string>
  readonly t: number
}

const sign = (key: string, payload: string) =>
  createHmac("sha256", key).update(`${prefix}${payload}`).digest().subarray(0, 18).toString("base64url")

export const makePendingClients = (key: string, pendingMillis: number) => ({
  /** The client_id of a new registration made at `at`. */
  issue: (client: { readonly name: string; readonly redirectUris: ReadonlyArray<string> }, at: number): OAuthClient => {
    const claims: Claims = { n: client.name, r: client.redirectUris, t: at }
    const payload = Buffer.from(JSON.stringify(claims), "utf8").toString("base64url")
    return {
      clientId: `${prefix}${payload}.${sign(key, payload)}`,
      name: client.name,
      redirectUris: client.redirectUris,
      issuedAt: at
    }
  },
  /** The client a pending client_id stands for, if Relay signed it and it is still within its time; else null. */
  read: (clientId: string, now: number): OAuthClient | null => {
    if (!clientId.startsWith(prefix) || clientId.length > 4096) return null
    const [payload, signature, extra] = clientId.slice(prefix.length).split(".")
    if (payload === undefined || signature === undefined || extra !== undefined) return null
    const expected = Buffer.from(sign(key, payload))
    const given = Buffer.from(signature)
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null
    let claims: Claims
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Claims
    } catch {
      return null
    }
    if (claims.t > now || now - claims.t >= pendingMillis) return null
    return { clientId, name: claims.n, redirectUris: claims.r, issuedAt: claims.t }
  }
})

export type PendingClients = ReturnType<typeof makePendingClients>
