import { Layer } from "effect"
import { DatabaseEndpoint } from "../../services/DatabaseEndpoint.js"
import { FalkorDbLive } from "./FalkorDbLive.js"

/** The connection to the settings' graph (FalkorDB), on the endpoint the settings name. */
export const GraphDatabaseLive = FalkorDbLive.pipe(Layer.provide(DatabaseEndpoint.Default))
