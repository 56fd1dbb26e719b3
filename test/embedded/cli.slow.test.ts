import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Path from "node:path"
import { findModule, probe } from "../../src/layers/embedded/serverBinary.js"
import { cli, parseStatus, serverPids, tempDataDir } from "./helpers.js"

// Where the bundled redis-server runs (glibc 2.38+) there is always a binary, so the test of a missing
// one cannot be set up: it is reported as skipped there, not as passed.
const bundledServerRuns = await Effect.runPromise(
  Effect.gen(function*() {
    const modulePath = yield* findModule
    return Option.isSome(modulePath) &&
      Option.isSome(yield* probe(Path.join(Path.dirname(modulePath.value), "redis-server")))
  }).pipe(Effect.provide(NodeContext.layer))
)

layer(NodeContext.layer, { excludeTestServices: true })("db CLI (separate Node processes)", (it) => {
  it.scoped("four processes starting at the same moment yield exactly one server", () =>
    Effect.gen(function*() {
      const dir = yield* tempDataDir()
      const results = yield* Effect.all(
        Array.from({ length: 4 }, () => cli(dir, ["start", "--json"])),
        { concurrency: "unbounded" }
      )
      const statuses = results.map(parseStatus)
      const pids = new Set(statuses.map((s) => s.pid))
      expect(statuses.every((s) => s.running)).toBe(true)
      expect(pids.size).toBe(1)
      expect(yield* serverPids(dir)).toEqual([...pids])
      // A later process joins the same server.
      expect(parseStatus(yield* cli(dir, ["start", "--json"])).pid).toBe(statuses[0]?.pid)
    }))

  it.scoped("status and stop report the server and never print the password", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDataDir()
      const before = yield* cli(dir, ["status"])
      expect(before.exitCode).toBe(0)
      expect(before.stdout).toMatch(/running:\s+no/)
      const started = yield* cli(dir, ["start"])
      expect(started.stdout).toMatch(/running:\s+yes/)
      expect(started.stdout).toMatch(/FalkorDB module:\s+\d+\.\d+\.\d+/)
      const secret = (yield* fs.readFileString(`${dir}/password`)).trim()
      expect(secret.length).toBeGreaterThan(0)
      expect(started.stdout + started.stderr).not.toContain(secret)
      expect(started.stderr).toBe("")
      const stopped = yield* cli(dir, ["stop"])
      expect(stopped.stdout).toMatch(/^stopped the embedded FalkorDB server \(pid \d+\)/)
      expect(yield* serverPids(dir)).toEqual([])
    }))

  it.scoped.skipIf(bundledServerRuns)(
    "without a runnable server binary, fails with one sentence naming the command to run",
    () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* tempDataDir()
        // An empty PATH: no valkey-server or redis-server can be found (node is run by its absolute path).
        const emptyBin = yield* fs.makeTempDirectoryScoped({ prefix: "relay-empty-path-" })
        const r = yield* cli(dir, ["start"], { PATH: emptyBin })
        expect(r.exitCode).toBe(1)
        expect(yield* serverPids(dir)).toEqual([])
        const message = r.stderr.trim()
        expect(message.split("\n")).toHaveLength(1)
        expect(message).toContain("npm run setup-db")
        expect(message).toContain("FALKORDB_URL")
      })
  )
})
