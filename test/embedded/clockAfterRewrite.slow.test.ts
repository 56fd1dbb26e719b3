import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { schemaVersion } from "../../src/layers/database/schemaVersion.js"
import { sendCommands } from "../../src/layers/database/serverCommands.js"
import { infoField } from "../../src/layers/database/serverInfo.js"
import { ensureEmbeddedServer, stopEmbeddedServer } from "../../src/layers/embedded/EmbeddedServer.js"
import { FactStore } from "../../src/services/FactStore.js"
import { Settings } from "../../src/services/Settings.js"
import { inDataDir, tempDataDir } from "./helpers.js"

const graph = "relay"

/** Relay's stack on the embedded server of the data dir the config names. */
const stack = relayStack(
  Layer.succeed(Settings, { database: { _tag: "Embedded" }, graph, rateLimitPerMinute: 100_000 })
)

/** GRAPH.QUERY on the embedded server of `dir`: the rows. */
const queryIn = (dir: string) => (cypher: string) =>
  Effect.flatMap(
    ensureEmbeddedServer.pipe(inDataDir(dir)),
    ({ password, socketPath }) => sendCommands(socketPath, password, [["GRAPH.QUERY", graph, cypher]])
  ).pipe(
    Effect.map(([reply]) => (reply as [unknown, ReadonlyArray<ReadonlyArray<unknown>>])[1])
  )

/** Saves `n` roots through Relay's stack, started and closed here, and gives their stamps. */
const saveRoots = (n: number) =>
  Effect.flatMap(FactStore, (store) =>
    Effect.forEach(Array.from({ length: n }), (_, i) =>
      store.save({
        id: randomUUID(),
        content: `the service answers within ${i + 1} ms`,
        writtenBy: "test",
        sessionId: "clock",
        parentId: null
      }).pipe(Effect.map((saved) => Date.parse(saved.fact.created_at))))).pipe(Effect.provide(stack), Effect.scoped)

/**
 * FalkorDB 4.16.3's range index loses the entries whose value is 0 when the server loads a rewritten
 * append-only file. The clock node's id is 0: with an index on it, every write after such a restart
 * made another clock node, which lost the schema version and the clock's counts.
 */
layer(NodeContext.layer, { excludeTestServices: true })("the clock across a rewrite and a restart", (it) => {
  it.scoped("stays one node, with its version and counts, on a graph an older Relay indexed", () =>
    Effect.gen(function*() {
      const dir = yield* tempDataDir()
      const server = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      const query = queryIn(dir)
      // The index an older Relay made on RelayClock.id.
      yield* query("CREATE INDEX FOR (x:RelayClock) ON (x.id)")
      const before = yield* saveRoots(3).pipe(inDataDir(dir))

      const rewriting = sendCommands(server.socketPath, server.password, [["INFO", "persistence"]]).pipe(
        Effect.map(([info]) =>
          Option.getOrThrow(infoField(info, "aof_rewrite_in_progress")) !== "0" ||
          Option.getOrThrow(infoField(info, "aof_rewrite_scheduled")) !== "0"
        )
      )
      yield* rewriting.pipe(Effect.repeat({ while: (r) => r, schedule: Schedule.spaced("50 millis") }))
      yield* sendCommands(server.socketPath, server.password, [["BGREWRITEAOF"]])
      yield* rewriting.pipe(
        Effect.repeat({ while: (r) => r, schedule: Schedule.spaced("50 millis") }),
        Effect.timeout("20 seconds")
      )
      yield* stopEmbeddedServer.pipe(inDataDir(dir))

      const after = yield* saveRoots(3).pipe(inDataDir(dir))
      expect(yield* query("MATCH (c:RelayClock) RETURN count(c)")).toEqual([[1]])
      expect(yield* query("MATCH (c:RelayClock)-[k:CLOCK]->(c) RETURN c.schema, k.facts")).toEqual([[
        schemaVersion,
        6
      ]])
      expect(
        yield* query(
          "CALL db.indexes() YIELD label, properties WHERE label = 'RelayClock' AND 'id' IN properties RETURN count(label)"
        )
      ).toEqual([[
        0
      ]])
      const stamps = [...before, ...after]
      expect(stamps).toEqual([...stamps].sort((a, b) => a - b))
      expect(new Set(stamps).size).toBe(6)
    }))

  it.scoped("merges the clock nodes a graph already has from it into one, each value the largest", () =>
    Effect.gen(function*() {
      const dir = yield* tempDataDir()
      const query = queryIn(dir)
      yield* query(
        `CREATE (a:RelayClock {id: 0, schema: ${schemaVersion}})-[:CLOCK {last: 1000, facts: 5, bytes: 500, ` +
          `docs: 5, terms: 20}]->(a), (b:RelayClock {id: 0})-[:CLOCK {last: 2000, facts: 2, bytes: 100, docs: 2, ` +
          `terms: 4}]->(b), (:RelayClock {id: 0, schema: ${schemaVersion}, last: 3000, facts: 1})`
      )
      const [stamp] = yield* saveRoots(1).pipe(inDataDir(dir))
      expect(stamp).toBeGreaterThan(3000)
      expect(yield* query("MATCH (c:RelayClock) RETURN count(c)")).toEqual([[1]])
      expect(
        yield* query(
          "MATCH (c:RelayClock)-[k:CLOCK]->(c) RETURN c.schema, k.last > 3000, k.facts, k.docs, k.bytes > 500"
        )
      ).toEqual([[schemaVersion, "true", 6, 6, "true"]])
    }))
})
