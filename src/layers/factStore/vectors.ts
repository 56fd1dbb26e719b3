import { Effect, Ref, Schema } from "effect"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import type { Embedder } from "./embeddings.js"

/**
 * A fact's vector (embeddings.ts) is its `embedding` property, a vecf32 set in the statement that
 * creates the fact (createFact.ts, from the `$embedding` parameter; null leaves it out), or later
 * by the backfill. FalkorDB's vector index over it (cosine) is made the first time a vector of a
 * known dimension is at hand: its dimension is the endpoint's, learned from its first answer. An
 * index of another dimension (the model was changed) stays; vectors of the new dimension are then
 * stored but not indexed, so a changed model needs the index dropped by hand (docs/settings.md).
 */
export interface Vectors {
  readonly embedder: Embedder
  /** Whether this store has seen the vector index in place (then it is never asked again). */
  readonly indexed: Ref.Ref<boolean>
}

export const makeVectors = (embedder: Embedder) =>
  Effect.map(Ref.make(false), (indexed): Vectors => ({ embedder, indexed }))

const IndexRow = Schema.Struct({ t: Schema.NullOr(Schema.Array(Schema.String)) })

/** The vector index on Fact.embedding, made when missing (a race with another process that made it is no error). */
export const ensureVectorIndex = (db: GraphDatabase["Type"], v: Vectors, dimension: number) =>
  Effect.gen(function*() {
    if (yield* Ref.get(v.indexed)) return
    const present = () =>
      Effect.map(
        db.read(
          `CALL db.indexes() YIELD label, types WITH label, types WHERE label = 'Fact' RETURN types.embedding AS t`,
          {},
          IndexRow
        ),
        (rows) => rows.some((r) => (r.t ?? []).includes("VECTOR"))
      )
    if (!(yield* present())) {
      // The dimension is a whole number the endpoint gave; FalkorDB takes no parameter in OPTIONS.
      yield* db.write(
        `CREATE VECTOR INDEX FOR (f:Fact) ON (f.embedding) OPTIONS {dimension: ${Math.trunc(dimension)}, ` +
          `similarityFunction: 'cosine'}`
      ).pipe(Effect.catchAllCause((cause) => Effect.logWarning("vector index not made", cause)))
    }
    if (yield* present()) yield* Ref.set(v.indexed, true)
  })

/** A text's vector, with the index made ready for its dimension; null when the endpoint gave none. */
export const vectorOf = (db: GraphDatabase["Type"], v: Vectors, text: string) =>
  Effect.gen(function*() {
    const vectors = yield* v.embedder.embed([text])
    const vector = vectors?.[0] ?? null
    if (vector === null) return null
    // A save without an index still stores its vector (the index covers it once made).
    yield* ensureVectorIndex(db, v, vector.length).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("vector index not made", cause))
    )
    return vector
  })

/** The most facts one look of the backfill embeds, in requests of `backfillBatch`. */
export const backfillBatch = 32
export const backfillBatchesPerLook = 8

const Missing = Schema.Struct({ id: Schema.String, content: Schema.String })
const Count = Schema.Struct({ n: Schema.Number })

/**
 * Facts without a vector (saved while the endpoint was down or slow, by the bulk path or an import,
 * or before RELAY_EMBEDDINGS_URL was set) get one, a bounded batch a statement, off every request's
 * path. The write keeps a vector that landed meanwhile. Two processes backfilling one graph may embed
 * a fact twice; the second write finds it set and changes nothing. Stops at the first batch the
 * endpoint does not answer (the next look tries again). Returns how many facts got a vector.
 */
export const backfill = (db: GraphDatabase["Type"], v: Vectors) =>
  Effect.gen(function*() {
    let done = 0
    for (let i = 0; i < backfillBatchesPerLook; i++) {
      const missing = yield* db.read(
        `MATCH (f:Fact) WHERE f.embedding IS NULL RETURN f.id AS id, f.content AS content LIMIT $batch`,
        { batch: backfillBatch },
        Missing
      )
      if (missing.length === 0) break
      const vectors = yield* v.embedder.embed(missing.map((m) => m.content))
      if (vectors === null) break
      yield* ensureVectorIndex(db, v, vectors[0]!.length)
      const wrote = yield* db.write(
        `UNWIND $rows AS r MATCH (f:Fact {id: r.id}) WHERE f.embedding IS NULL ` +
          `SET f.embedding = vecf32(r.v) RETURN count(f) AS n`,
        { rows: missing.map((m, k) => ({ id: m.id, v: [...vectors[k]!] })) },
        Count
      )
      done += wrote[0]?.n ?? 0
      if (missing.length < backfillBatch) break
    }
    return done
  })

/** The backfill at start, then every `backfillEvery`, for as long as its scope lives; a failed look waits for the next. */
export const backfillDaemon = (db: GraphDatabase["Type"], v: Vectors) =>
  backfill(db, v).pipe(
    Effect.catchAllCause((cause) => Effect.logDebug("embeddings not backfilled", cause)),
    Effect.zipRight(Effect.sleep(v.embedder.settings.backfillEvery)),
    Effect.forever
  )
