import { Context, type Effect } from "effect"
import type { FalkorDBOptions } from "falkordb"
import type { DatabaseError } from "../domain/errors.js"
import type { Address } from "./Settings.js"

/**
 * Where the database is (Sentinel's current master, FALKORDB_URL / HOST / PORT, or the embedded
 * server): asked on every (re)connect, so a failover or a restarted embedded server is found again.
 * Implemented by layers/database (DatabaseEndpointLive).
 */
export class DatabaseEndpoint extends Context.Tag("relay/DatabaseEndpoint")<DatabaseEndpoint, {
  readonly options: Effect.Effect<FalkorDBOptions, DatabaseError>
  /** A Valkey cluster's seed nodes: `options` then holds only what every node's connection shares. */
  readonly clusterNodes?: ReadonlyArray<Address>
}>() {}
