import { Effect, type Schema } from "effect"
import { DatabaseError } from "../../src/domain/errors.js"
import { type CypherParams, GraphDatabase, type GraphDatabaseShape } from "../../src/services/GraphDatabase.js"

/** The same database with a statement of the caller's choosing failing once, as the server's timeout fails it. */
export const failingOnce = (db: GraphDatabaseShape, fails: (cypher: string) => boolean): GraphDatabaseShape => {
  let done = false
  const pick = (run: GraphDatabaseShape["write"]): GraphDatabaseShape["write"] =>
    ((q: string, p?: CypherParams, s?: Schema.Schema<unknown>) => {
      if (!done && fails(q)) {
        done = true
        return Effect.fail(new DatabaseError({ reason: "timeout", detail: "query timed out" }))
      }
      return run(q, p ?? {}, s as never)
    }) as unknown as GraphDatabaseShape["write"]
  return { ...db, write: pick(db.write), read: pick(db.read) }
}

export const withDatabase = <A, E, R>(effect: Effect.Effect<A, E, R>, db: GraphDatabaseShape) =>
  Effect.provideService(effect, GraphDatabase, db)
