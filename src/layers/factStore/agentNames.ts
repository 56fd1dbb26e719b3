import { Effect, Ref, Schema } from "effect"
import type { DatabaseError } from "../../domain/errors.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"

/**
 * Names compare without case: each lower-cased key has one Agent node that keeps the spelling
 * first written, and every name a call brings is replaced by it (policies/agentNames.ts), so the
 * graph holds one spelling of each reader, writer and holder and every match stays exact (and on
 * its index). Keys are made here: AgentName is ASCII, so toLowerCase is FalkorDB's toLower.
 */
export const recordNamesQuery = `UNWIND $names AS n MERGE (a:Agent {key: n.key}) ON CREATE SET a.name = n.name ` +
  `RETURN n.name AS given, a.name AS shown`

/** A filter's name (written_by in search, claimed_by in a list) is looked up, never recorded. */
const lookupQuery = `UNWIND $names AS n OPTIONAL MATCH (a:Agent {key: n.key}) ` +
  `RETURN n.name AS given, coalesce(a.name, n.name) AS shown`

const Row = Schema.Struct({ given: Schema.String, shown: Schema.String })

export const namePairs = (names: ReadonlyArray<string>) => names.map((name) => ({ key: name.toLowerCase(), name }))

export type ShownNames = (
  names: ReadonlyArray<string>,
  record: boolean
) => Effect.Effect<ReadonlyMap<string, string>, DatabaseError>

/** Names a store keeps what it learned of; past it, it starts again (the graph keeps them all). */
const keptMax = 4096

/**
 * The spelling first written of each name (`record`: a name never seen becomes its own first
 * spelling). A spelling once recorded never changes, so the store keeps what it learned: a call
 * pays a statement only for a name new to this process. Only answers are kept, never a lookup in
 * flight: a call interrupted by its time budget then takes no other call's lookup with it (with
 * Effect's Cache the calls waiting on it got that interruption, as an internal error).
 */
export const makeShownNames = (db: GraphDatabase["Type"]) =>
  Effect.map(
    Ref.make(new Map<string, string>()),
    (known): ShownNames => (names, record) =>
      Effect.gen(function*() {
        const kept = yield* Ref.get(known)
        const shown = new Map<string, string>()
        const unknown: Array<string> = []
        for (const name of new Set(names)) {
          const hit = kept.get(name)
          if (hit === undefined) unknown.push(name)
          else shown.set(name, hit)
        }
        if (unknown.length === 0) return shown
        const rows = record
          ? yield* db.write(recordNamesQuery, { names: namePairs(unknown) }, Row)
          : yield* db.read(lookupQuery, { names: namePairs(unknown) }, Row)
        for (const r of rows) shown.set(r.given, r.shown)
        if (record) {
          yield* Ref.update(known, (m) => {
            const next = new Map(m.size + rows.length > keptMax ? [] : m)
            for (const r of rows) next.set(r.given, r.shown)
            return next
          })
        }
        return shown
      })
  )
