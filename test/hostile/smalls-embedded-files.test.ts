import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { FalkorDB } from "falkordb"
import { ensureEmbeddedServer } from "../../src/layers/embedded/EmbeddedServer.js"
import { inDataDir, serverPids, tempDataDir } from "../embedded/helpers.js"

/** Every path under `dir` (itself included) with its permission bits. */
const modesUnder = (dir: string): Effect.Effect<Array<[string, number]>, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const names = yield* fs.readDirectory(dir, { recursive: true }).pipe(Effect.orDie)
    return yield* Effect.forEach(
      [".", ...names],
      (name) =>
        fs.stat(`${dir}/${name}`).pipe(Effect.map((s): [string, number] => [name, s.mode & 0o777]), Effect.orDie)
    )
  })

// A real clock: the embedded launcher polls and waits in real time.
layer(NodeContext.layer, { excludeTestServices: true })("embedded server files (issue 9)", (it) => {
  it.scoped("the AOF, its directory, the log, the pid file and the socket are the user's alone", () =>
    Effect.gen(function*() {
      const dir = yield* tempDataDir()
      const endpoint = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      // One write, so the AOF holds data and not only its manifest.
      yield* Effect.acquireUseRelease(
        Effect.promise(() =>
          FalkorDB.connect({ socket: { path: endpoint.socketPath }, password: Redacted.value(endpoint.password) })
        ),
        (db) => Effect.promise(() => db.selectGraph("relay_files").query("CREATE (:Fact {id: 'f1'})")),
        (db) => Effect.promise(() => db.close())
      )
      const modes = yield* modesUnder(dir)
      const names = modes.map(([name]) => name)
      // Not vacuous: the files the server made itself are there.
      for (const made of ["falkordb.log", "falkordb.pid", "falkordb.sock", "appendonlydir"]) {
        expect(names).toContain(made)
      }
      expect(names.filter((n) => n.startsWith("appendonlydir/")).length).toBeGreaterThanOrEqual(2)
      const open = modes.filter(([, mode]) => (mode & 0o077) !== 0).map(([name, mode]) => `${name} ${mode.toString(8)}`)
      expect(open).toEqual([])
    }))

  it.scoped("refuses a data dir others can write, with one sentence, and leaves it as it was", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDataDir()
      yield* fs.makeDirectory(dir, { recursive: true })
      yield* fs.chmod(dir, 0o777)
      yield* fs.writeFileString(`${dir}/planted`, "x")
      const before = yield* modesUnder(dir)

      const error = yield* Effect.flip(ensureEmbeddedServer.pipe(inDataDir(dir)))
      expect(error._tag).toBe("EmbeddedServerError")
      expect(error.message).toBe(
        `The directory ${dir} can be written by other users (mode 777); check what is in it, then make it ` +
          "yours alone (chmod 700) or set RELAY_DATA_DIR to a new directory."
      )
      // Not chmodded, nothing written, nothing started.
      expect(yield* modesUnder(dir)).toEqual(before)
      expect(yield* serverPids(dir)).toEqual([])

      // Group-writable is refused too; readable by others only is tightened, as before.
      yield* fs.chmod(dir, 0o770)
      expect((yield* Effect.flip(ensureEmbeddedServer.pipe(inDataDir(dir)))).message).toContain("(mode 770)")
      yield* fs.chmod(dir, 0o755)
      yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      expect((yield* fs.stat(dir)).mode & 0o777).toBe(0o700)
    }))
})
