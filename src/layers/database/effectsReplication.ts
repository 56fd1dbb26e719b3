import { Effect } from "effect"
import { driverCall } from "./driverErrors.js"
import { configNumber } from "./serverTimeout.js"

/**
 * Every write goes to the append-only file (and to replicas) as its query, never as FalkorDB's
 * "effects" (the changes it made, which it sends instead once a write's time per change passes
 * 300 us: a loaded server, a slow statement). On 4.16.3 a memory replayed from effects can hold a
 * property under an attribute id with no name: an acknowledged fact whose `written_by` reads as
 * null, and a server that crashes (SIGSEGV in Map_Add) when anything lists that fact's properties.
 * The cause (docs/design/falkordb-effects.md has four statements that show it): a write whose CREATE
 * did not run still adds the property names that CREATE mentions to the graph, but is neither
 * persisted nor replicated; a later write sent as effects adds its own new names by name and sets
 * values by the primary's ids, which the replay has shifted. A new graph's first start therefore
 * writes only its version (schemaVersion.ts), but any refused or empty write (a refused save, a
 * lost lease) can do it.
 * test/faults/databaseKill.slow.test.ts found it after a kill in 6 runs of 13, in none of 13 with this
 * setting; a replica applying effects crashed in AttributeSet_Update (the failover test).
 * Relay's writes are deterministic (no rand() or timestamp(); the one pick under a LIMIT whose
 * choice is stored, an expired claim, is ordered), so a replayed query rebuilds what it wrote.
 * What it costs: nothing measured. 500 saves on two persisting servers, one of each setting: p50
 * 5.85 ms with it, 5.82 ms without, 5.7 KB of append-only file a save with either (most saves were
 * sent as queries already). In microseconds: never. Every server Relay starts gets it
 * (embedded/serverConfig.ts, the tests' server, scripts/team.mjs, docker-compose.yml).
 */
export const effectsThreshold = 1_000_000_000

/**
 * Whether the server replicates writes as effects. It fails as the driver does; FalkorDbLive.ts
 * takes a failure for no.
 */
export const replicatesEffects = (db: { readonly configGet: (key: string) => Promise<unknown> }) =>
  driverCall(() => db.configGet("EFFECTS_THRESHOLD")).pipe(
    Effect.map((reply) => configNumber(reply) < effectsThreshold)
  )

export const effectsWarning =
  `FalkorDB writes its append-only file and replicas as effects (EFFECTS_THRESHOLD below ${effectsThreshold}); ` +
  `on 4.16 a replay of effects can lose properties of facts: run GRAPH.CONFIG SET EFFECTS_THRESHOLD ${effectsThreshold} ` +
  `(docker-compose.yml sets it)`
