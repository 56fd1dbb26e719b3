import { Duration, Effect } from "effect"
import { queryTimeout } from "../../services/GraphDatabase.js"
import { driverCall } from "./driverErrors.js"

/**
 * The TIMEOUT Relay sends with every query, so FalkorDB stops a query the caller has given up on.
 *
 * What FalkorDB 4.16 does with it (its docs, and checked on the real server):
 * - a read is stopped at TIMEOUT and answers "Query timed out";
 * - a write honours TIMEOUT only when the server's TIMEOUT_DEFAULT or TIMEOUT_MAX is set (both are 0
 *   by default, and then writes never time out). The embedded server gets TIMEOUT_DEFAULT at start
 *   (embedded/serverConfig.ts); an external server needs its operator to set one. A write stopped by
 *   its TIMEOUT is rolled back entirely (30,000 CREATEs left nothing) and never reaches the AOF, so
 *   it did not land; the time spent waiting behind other writes counts too;
 * - a TIMEOUT above the server's TIMEOUT_MAX is refused, so the server's cap wins when it is lower.
 */
export interface ServerTimeout {
  /** The TIMEOUT to send, in ms. */
  readonly millis: number
  /** Whether the server applies it to writes too (TIMEOUT_DEFAULT or TIMEOUT_MAX set). */
  readonly boundsWrites: boolean
}

const ours = Duration.toMillis(queryTimeout)

/** The number in a GRAPH.CONFIG GET reply (`["TIMEOUT_MAX", 0]`, or nested in another array). */
export const configNumber = (reply: unknown): number => {
  const flat = Array.isArray(reply) ? reply.flat(2) : []
  const value = flat.find((v): v is number | string => typeof v === "number" || /^\d+$/.test(String(v)))
  const n = Number(value)
  return Number.isFinite(n) && n > 0 ? n : 0
}

export const timeoutSettings = (max: number, fallback: number): ServerTimeout => ({
  millis: max > 0 ? Math.min(ours, max) : ours,
  boundsWrites: max > 0 || fallback > 0
})

/**
 * Reads the server's TIMEOUT_MAX and TIMEOUT_DEFAULT once per connection. A server that refuses
 * GRAPH.CONFIG (an ACL, a managed service) gets Relay's own value, as if it had no cap.
 */
export const readServerTimeout = (db: { readonly configGet: (key: string) => Promise<unknown> }) =>
  driverCall(() => Promise.all([db.configGet("TIMEOUT_MAX"), db.configGet("TIMEOUT_DEFAULT")])).pipe(
    Effect.map(([max, fallback]) => timeoutSettings(configNumber(max), configNumber(fallback))),
    Effect.catchIf((e) => !e.transient, () => Effect.succeed(timeoutSettings(0, 0)))
  )
