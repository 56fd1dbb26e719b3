import { Effect } from "effect"
import { databaseEndpoint } from "../layers/database/DatabaseEndpoint.js"
import { EmbeddedServer } from "./EmbeddedServer.js"

/**
 * Where the database is (Sentinel's current master, FALKORDB_URL / HOST / PORT, or the embedded
 * server), asked on every (re)connect. Depends on Settings (given by whoever assembles the stack)
 * and on the embedded server, which it only starts when the settings name no database.
 */
export class DatabaseEndpoint extends Effect.Service<DatabaseEndpoint>()("relay/DatabaseEndpoint", {
  effect: databaseEndpoint,
  dependencies: [EmbeddedServer.Default]
}) {}
