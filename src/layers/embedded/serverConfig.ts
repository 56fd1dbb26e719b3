/**
 * The server's configuration file (written 0600 into the data dir at each
 * start, so the password never appears on a command line):
 * - listens only on a unix socket (mode 700), never on TCP (`port 0`);
 * - append-only file on, fsync on every write (`appendfsync always`), so an
 *   acknowledged write survives a crash; RDB snapshots off (`save ""`): the AOF
 *   (with its RDB preamble after rewrites) is the one source of truth;
 * - daemonized with a pidfile and a logfile, so it outlives the process that
 *   started it.
 */
import type { Redacted } from "effect"
import { Duration, Redacted as R } from "effect"
import { queryTimeout } from "../../services/GraphDatabase.js"
import { effectsThreshold } from "../database/effectsReplication.js"
import type { EmbeddedLayout } from "./layout.js"

const quote = (s: string): string => `"${s.replace(/\\/g, "\\\\").replace(/"/g, "\\\"")}"`

export const renderConfig = (
  layout: EmbeddedLayout,
  modulePath: string,
  password: Redacted.Redacted<string>
): string =>
  [
    "# Written by Relay at each start of the embedded FalkorDB; edits are overwritten.",
    "port 0",
    `unixsocket ${quote(layout.socketPath)}`,
    "unixsocketperm 700",
    `dir ${quote(layout.dataDir)}`,
    "daemonize yes",
    `pidfile ${quote(layout.pidFile)}`,
    `logfile ${quote(layout.logFile)}`,
    "appendonly yes",
    "appendfsync always",
    "save \"\"",
    `requirepass ${quote(R.value(password))}`,
    `loadmodule ${quote(modulePath)}`,
    ""
  ].join("\n")

/**
 * Set on the running server after every start or join, never in the file above: FalkorDB only
 * applies a query's TIMEOUT to writes once TIMEOUT_DEFAULT (or TIMEOUT_MAX) is set, but a value set
 * at module load also bounds the replay of the AOF at the next start, where a write that took
 * longer to replay than to run the first time is dropped with a "Query timed out" logged and the
 * server carries on without it (seen on 4.16.3). Set at run time, the value is gone when the
 * server restarts, so the AOF always replays without a timeout.
 */
export const runtimeConfig: ReadonlyArray<ReadonlyArray<string>> = [
  ["GRAPH.CONFIG", "SET", "TIMEOUT_DEFAULT", String(Duration.toMillis(queryTimeout))],
  // Writes replicate as queries (database/effectsReplication.ts).
  ["GRAPH.CONFIG", "SET", "EFFECTS_THRESHOLD", String(effectsThreshold)]
]
