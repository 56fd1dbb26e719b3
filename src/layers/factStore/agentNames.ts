import { Cache, Duration, Effect, Exit, Option, Schema } from "effect"
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

/**
 * The spelling first written of each name (`record`: a name never seen becomes its own first
 * spelling). A spelling once recorded never changes, so the store keeps what it learned: a call
 * pays a statement only for a name new to this process.
 */
export const makeShownNames = (db: GraphDatabase["Type"]) =>
  Effect.map(
    Cache.makeWith({
      capacity: 4096,
      // A failed lookup (the database down) is not kept: the next call asks again.
      timeToLive: (exit) => Exit.isSuccess(exit) ? Duration.infinity : Duration.zero,
      lookup: (name: string) =>
        Effect.map(db.write(recordNamesQuery, { names: namePairs([name]) }, Row), (rows) => rows[0]?.shown ?? name)
    }),
    (cache): ShownNames => (names, record) =>
      record
        ? Effect.map(
          Effect.forEach(new Set(names), (name) => Effect.map(cache.get(name), (shown) => [name, shown] as const)),
          (entries) => new Map(entries)
        )
        : Effect.gen(function*() {
          const known = new Map<string, string>()
          const unknown: Array<string> = []
          for (const name of new Set(names)) {
            const hit = yield* cache.getOption(name)
            if (Option.isSome(hit)) known.set(name, hit.value)
            else unknown.push(name)
          }
          if (unknown.length > 0) {
            for (const r of yield* db.read(lookupQuery, { names: namePairs(unknown) }, Row)) known.set(r.given, r.shown)
          }
          return known
        })
  )
