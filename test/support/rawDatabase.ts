import { Effect } from "effect"
import { FalkorDB } from "falkordb"
import { inject } from "vitest"

/** A bare `falkordb` client on this run's database for the length of `f`: to look at or load a graph from outside Relay. */
export const withRawDatabase = async <A>(f: (db: FalkorDB) => Promise<A>): Promise<A> => {
  const { host, password, port } = inject("falkordb")
  const db = await FalkorDB.connect({ socket: { host, port }, password })
  try {
    return await f(db)
  } finally {
    await db.close()
  }
}

/** The same bare client as a scoped resource: one per racer, as each Relay process holds its own. */
export const rawDatabase = Effect.acquireRelease(
  Effect.promise(() => {
    const { host, password, port } = inject("falkordb")
    return FalkorDB.connect({ socket: { host, port }, password })
  }),
  (db) => Effect.promise(() => db.close().catch(() => undefined))
)
