import { Schema } from "effect"
import { createHash } from "node:crypto"

/**
 * The client's idempotency key for one write: it sends the same request_id again when it retries a
 * save or resolve that answered `unavailable`, and gets what landed instead of a second copy.
 */
export const RequestId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, {
    message: () => "must be 1-128 characters of letters, digits, '.', '_', ':' or '-', starting with a letter or digit"
  }),
  Schema.annotations({
    description: "Reuse on retry"
  })
)

/** Fixed, so the same key maps to the same id in every process and release. */
const namespaces = {
  fact: "6f0d2a8e-3b1c-4e57-9a40-5c1f7d2b9e13",
  resolution: "c4b7e1d2-8a65-4f3b-b0e9-2d7c6a15f840",
  retraction: "9e3a5c71-2f48-4d06-8b1e-7a6d0c4f2b95",
  confirmation: "5b2e8d14-6c9f-4a37-8e05-d1f3a7c6b920",
  stillHolds: "0c7e4f29-b318-4d5a-9e62-f1a8d30b7c46",
  task: "3d8f6b20-71c4-4a9e-b5d2-0e6a9c1f4b37",
  claim: "a1c5e9f3-4b72-4d8e-9f06-5b3d7e2a8c14",
  run: "e27c9b41-5d03-4f8a-a6e2-93b1d0c7f458"
} as const

/**
 * A UUID (version 8, RFC 9562's name-based layout with SHA-256) from a namespace, the writer's name
 * and its request_id: the same retry gives the same id, and two assistants that happen to pick the
 * same request_id get different ones. The request_id itself is never stored. The NUL between the
 * parts cannot occur in either (their patterns exclude it), so no two pairs hash the same input.
 */
const derivedId = (namespace: string, writer: string, requestId: string): string => {
  const bytes = createHash("sha256").update(`${namespace}\u0000${writer}\u0000${requestId}`).digest().subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x80
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** The id of the fact a save with this request_id makes. */
export const requestFactId = (writtenBy: string, requestId: string): string =>
  derivedId(namespaces.fact, writtenBy, requestId)

/** The call id a resolve with this request_id records on its SUPERSEDES edge. */
export const requestCallId = (resolvedBy: string, requestId: string): string =>
  derivedId(namespaces.resolution, resolvedBy, requestId)

/** The id of the Retraction a retract with this request_id makes. */
export const requestRetractionId = (retractedBy: string, requestId: string): string =>
  derivedId(namespaces.retraction, retractedBy, requestId)

/** The id of the Confirmation a confirm with this request_id makes. */
export const requestConfirmationId = (confirmedBy: string, requestId: string): string =>
  derivedId(namespaces.confirmation, confirmedBy, requestId)

/**
 * The id of the Confirmation a revision (fact `factId`) records for a dependent it names in
 * still_holds: a retry of the save makes the same fact id, so it finds the confirmation that landed.
 */
export const stillHoldsConfirmationId = (factId: string, dependentId: string): string =>
  derivedId(namespaces.stillHolds, factId, dependentId)

/** The id of the task a post with this request_id makes. */
export const requestTaskId = (writtenBy: string, requestId: string): string =>
  derivedId(namespaces.task, writtenBy, requestId)

/** The claim id a claim with this request_id records on the task it takes. */
export const requestClaimId = (claimedBy: string, requestId: string): string =>
  derivedId(namespaces.claim, claimedBy, requestId)

/** The id of the Run a record_run with this request_id (or call id) makes. */
export const requestRunId = (ranBy: string, requestId: string): string => derivedId(namespaces.run, ranBy, requestId)

export const requestIdMessage = {
  save: "request_id: was already used for a different fact (other content, session, parent, kind or revision); " +
    "use a new request_id for a new fact",
  resolve: "request_id: was already used to resolve this pair with another reason; " +
    "use a new request_id for a new call",
  retract: "request_id: was already used to retract this fact with another reason; " +
    "use a new request_id for a new call",
  confirm: "request_id: was already used to confirm this fact with another reason; " +
    "use a new request_id for a new call",
  confirmElsewhere: "request_id: was already used to confirm another fact; use a new request_id for a new call"
} as const
