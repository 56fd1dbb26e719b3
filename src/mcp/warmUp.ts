import { Effect } from "effect"
import { GraphDatabase } from "../services/GraphDatabase.js"

/**
 * Connects and makes the indexes while the client is still starting, so the first tool call does not
 * pay for them inside its 2.5 s budget (on a loaded machine they alone can take that long). A failure
 * is already logged by the connection and left for that first call to meet again.
 */
export const warmUp = GraphDatabase.pipe(
  Effect.flatMap((db) => db.read("RETURN 1")),
  Effect.ignore
)
