/**
 * `node --import tsx bench/restart.ts [facts]` (default 100,000): issue 40, finding 8, on the embedded
 * server (its own temporary data dir, append-only file fsync'd on every write, as Relay runs it).
 * Loads the facts (an import of bench/memoryFile.ts's memory), times saves quiet and while the server rewrites its append-only
 * file (BGREWRITEAOF), SIGKILLs the server right after the rewrite and times the restart, then
 * writes a tail of one budget (aofTail.ts, 1 MiB) of saves, SIGKILLs and times the restart again.
 * "loaded" is the server's own log line; "ready" is Relay's start, from the spawn to an answer.
 * BENCH_RESTART_LOAD=generated loads bench/graph.ts's generated memory instead (GRAPH.BULK for the
 * facts and their edges: the way to a 1M-fact server in minutes rather than the import's ten).
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer, Option, Redacted } from "effect"
import { FalkorDB } from "falkordb"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { relayStack } from "../src/layers/assembly/stacks.js"
import { sendCommands } from "../src/layers/database/serverCommands.js"
import { infoField } from "../src/layers/database/serverInfo.js"
import { aofTailBudget } from "../src/layers/embedded/aofTail.js"
import { ensureEmbeddedServerAt, stopEmbeddedServerAt } from "../src/layers/embedded/EmbeddedServer.js"
import { layoutFor } from "../src/layers/embedded/layout.js"
import { runtimeConfig } from "../src/layers/embedded/serverConfig.js"
import { importText } from "../src/layers/transfer/transferText.js"
import { FactStore } from "../src/services/FactStore.js"
import { Settings } from "../src/services/Settings.js"
import { generateGraph, loadGraph } from "./graph.js"
import { memoryFile, memoryText } from "./memoryFile.js"

const n = Number(process.argv[2] ?? 100_000)
const generated = process.env["BENCH_RESTART_LOAD"] === "generated"
const dir = join(mkdtempSync(join(tmpdir(), "relay-bench-restart-")), "data")
process.env["RELAY_DATA_DIR"] = dir

const stack = relayStack(
  Layer.succeed(Settings, { database: { _tag: "Embedded" }, graph: "relay", rateLimitPerMinute: 1_000_000 })
)

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0
}

const program = Effect.gen(function*() {
  const layout = yield* layoutFor(dir)
  const { password, socketPath } = yield* ensureEmbeddedServerAt(layout)
  const persistence = sendCommands(socketPath, password, [["INFO", "persistence"]]).pipe(
    Effect.map(([info]) => {
      const field = (k: string) => Number(Option.getOrElse(infoField(info, k), () => "0"))
      return {
        base: field("aof_base_size"),
        current: field("aof_current_size"),
        rewriting: field("aof_rewrite_in_progress") + field("aof_rewrite_scheduled") > 0
      }
    })
  )
  const save = (i: number) =>
    Effect.flatMap(FactStore, (store) => {
      const t = performance.now()
      return store.save({
        id: randomUUID(),
        content: `after the load ${i}: the service answers within ${i % 97} ms`,
        writtenBy: "bench",
        sessionId: "restart",
        parentId: null
      }).pipe(Effect.map(() => performance.now() - t))
    })
  /**
   * The clock node by its label and by its id, and 50 facts by their id index: what a restart must
   * give back. (Seen here: after a SIGKILL right after a rewrite, `RelayClock {id: 0}` by its index
   * found nothing while the label found it, so every later write's MERGE made another; the clock's
   * id is no longer indexed, docs/design/performance.md "Found".)
   */
  const lookups = sendCommands(socketPath, password, [
    ["GRAPH.QUERY", "relay", "MATCH (c:RelayClock) RETURN count(c)"],
    ["GRAPH.QUERY", "relay", "MATCH (c:RelayClock {id: 0}) RETURN count(c)"],
    [
      "GRAPH.QUERY",
      "relay",
      "MATCH (f:Fact) WITH f.id AS id ORDER BY f.created_at DESC LIMIT 50 MATCH (g:Fact {id: id}) RETURN count(g)"
    ]
  ]).pipe(
    Effect.map((replies) => {
      const [byLabel, byIndex, facts] = replies.map((r) => (r as [unknown, [[number]]])[1][0]![0])
      return `clock nodes ${byLabel}, found by id ${byIndex}; 50 newest facts found by id ${facts}`
    })
  )
  const restart = Effect.gen(function*() {
    const before = yield* lookups
    const pid = Number(readFileSync(layout.pidFile, "utf8").trim())
    process.kill(pid, "SIGKILL")
    const t = performance.now()
    yield* ensureEmbeddedServerAt(layout)
    const ready = (performance.now() - t) / 1000
    const after = yield* lookups
    const loaded = [
      ...readFileSync(layout.logFile, "utf8").matchAll(/DB loaded from append only file: ([\d.]+) seconds/g)
    ]
      .at(-1)?.[1]
    return { ready, loaded: Number(loaded), before, after }
  })
  const rows: Array<[string, string]> = []
  yield* Effect.gen(function*() {
    const started = performance.now()
    if (generated) {
      yield* Effect.promise(async () => {
        const client = await FalkorDB.connect({ socket: { path: socketPath }, password: Redacted.value(password) })
        const connection = await client.connection
        // The load's statements are the bench's, not Relay's: no statement limit while it runs.
        await connection.sendCommand(["GRAPH.CONFIG", "SET", "TIMEOUT_DEFAULT", "0"])
        await loadGraph(client, "relay", generateGraph(n, Date.now() - 60 * 60 * 1000))
        for (const command of runtimeConfig) await connection.sendCommand([...command])
        await client.close()
      })
    } else {
      yield* importText(memoryText(memoryFile({ threads: Math.ceil(n / 50), perThread: 50 })), { merge: false })
    }
    rows.push([
      generated ? "load (generated, GRAPH.BULK)" : "load (npm run import's path)",
      `${n} facts in ${((performance.now() - started) / 1000).toFixed(1)} s`
    ])
    const quiet: Array<number> = []
    for (let i = 0; i < 200; i++) quiet.push(yield* save(i))
    rows.push(["saves, quiet", `p50 ${quantile(quiet, 0.5).toFixed(1)} ms, p99 ${quantile(quiet, 0.99).toFixed(1)} ms`])
    yield* persistence.pipe(Effect.repeat({ while: (p) => p.rewriting }))
    const before = yield* persistence
    const rewriteStart = performance.now()
    yield* sendCommands(socketPath, password, [["BGREWRITEAOF"]])
    const during: Array<number> = []
    let i = 0
    while ((yield* persistence).rewriting || i === 0) during.push(yield* save(1000 + i++))
    const after = yield* persistence
    rows.push([
      "saves during a rewrite",
      `p50 ${quantile(during, 0.5).toFixed(1)} ms, p99 ${quantile(during, 0.99).toFixed(1)} ms, max ${
        Math.max(...during).toFixed(1)
      } ms (${during.length} saves; rewrite ${((performance.now() - rewriteStart) / 1000).toFixed(1)} s, file ${
        (before.current / 1e6).toFixed(1)
      } MB -> ${(after.current / 1e6).toFixed(1)} MB)`
    ])
  }).pipe(Effect.provide(stack), Effect.scoped)
  const tailNow = yield* persistence
  const first = yield* restart
  rows.push(["lookups before the kill", first.before], ["lookups after the restart", first.after])
  rows.push([
    "restart right after the rewrite",
    `ready ${first.ready.toFixed(1)} s, loaded ${first.loaded} s (tail ${
      ((tailNow.current - tailNow.base) / 1024).toFixed(0)
    } KiB)`
  ])
  yield* Effect.gen(function*() {
    // The tail as the files say it (INFO's base size after a restart was not the base file's: at 1M
    // the loop found the tail past its budget before a save): the incremental files the manifest names.
    const aofDir = join(dir, "appendonlydir")
    const tailFiles = () =>
      [...readFileSync(join(aofDir, "appendonly.aof.manifest"), "utf8").matchAll(/^file (\S+) seq \d+ type i$/gm)]
        .reduce((n, m) => n + statSync(join(aofDir, m[1]!)).size, 0)
    const start = tailFiles()
    let i = 0
    while (tailFiles() - start <= aofTailBudget) yield* save(10_000 + i++)
    rows.push(["tail of one budget", `${i} saves (incremental files ${(start / 1024).toFixed(0)} KiB before them)`])
  }).pipe(Effect.provide(stack), Effect.scoped)
  const second = yield* restart
  rows.push(["lookups after the second restart", second.after])
  rows.push([
    "restart with a 1 MiB tail",
    `ready ${second.ready.toFixed(1)} s, loaded ${second.loaded} s: the tail adds ${
      (second.loaded - first.loaded).toFixed(1)
    } s`
  ])
  yield* stopEmbeddedServerAt(layout)
  console.log(`embedded server, ${n} facts`)
  for (const [k, v] of rows) console.log(`${k.padEnd(34)} ${v}`)
}).pipe(
  Effect.ensuring(Effect.sync(() => rmSync(join(dir, ".."), { recursive: true, force: true }))),
  Effect.provide(NodeContext.layer)
)

Effect.runPromise(program).catch((e) => {
  console.error(e)
  process.exit(1)
})
