import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Option, Redacted, Schedule } from "effect"
import { FalkorDB } from "falkordb"
import { embeddedStatus, ensureEmbeddedServer, stopEmbeddedServer } from "../../src/layers/embedded/EmbeddedServer.js"
import { layoutFor } from "../../src/layers/embedded/layout.js"
import { pidAlive } from "../../src/layers/embedded/processes.js"
import { inDataDir, pidOf, serverPids, tempDataDir } from "./helpers.js"

const withClient = <A>(socketPath: string, password: Redacted.Redacted<string>, f: (db: FalkorDB) => Promise<A>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => FalkorDB.connect({ socket: { path: socketPath }, password: Redacted.value(password) })),
    (db) => Effect.promise(() => f(db)),
    (db) => Effect.promise(() => db.close())
  )

// A real clock: the start lock and the polling schedules measure real time.
layer(NodeContext.layer, { excludeTestServices: true })("embedded FalkorDB server", (it) => {
  it.scoped("starts once, then a second call joins the same server", () =>
    Effect.gen(function*() {
      const dir = yield* tempDataDir()
      const first = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      const s1 = yield* embeddedStatus.pipe(inDataDir(dir))
      const second = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      const s2 = yield* embeddedStatus.pipe(inDataDir(dir))
      expect(s1.running).toBe(true)
      expect(pidOf(s2)).toBe(pidOf(s1))
      expect(second.socketPath).toBe(first.socketPath)
      expect(Redacted.value(second.password)).toBe(Redacted.value(first.password))
      expect(Option.getOrNull(s1.moduleVersion)).toMatch(/^\d+\.\d+\.\d+$/)
      expect(yield* serverPids(dir)).toEqual([pidOf(s1)])
    }))

  it.scoped("tells a server that refuses the stored password from one that is not there", () =>
    Effect.gen(function*() {
      const dir = yield* tempDataDir()
      yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      const layout = yield* layoutFor(dir)
      const fs = yield* FileSystem.FileSystem
      const stored = yield* fs.readFileString(layout.passwordFile)
      yield* fs.writeFileString(layout.passwordFile, "not-the-password")
      const refused = yield* Effect.flip(embeddedStatus.pipe(inDataDir(dir)))
      expect(refused.message).toMatch(/refuses the password/)
      expect(refused.message).not.toContain(stored.trim())
      yield* fs.writeFileString(layout.passwordFile, stored)
      yield* stopEmbeddedServer.pipe(inDataDir(dir))
      expect((yield* embeddedStatus.pipe(inDataDir(dir))).running).toBe(false)
    }))

  it.scoped("keeps data across a stop and a restart (AOF)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDataDir()
      const a = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      const pid1 = pidOf(yield* embeddedStatus.pipe(inDataDir(dir)))
      yield* withClient(a.socketPath, a.password, (db) =>
        db.selectGraph("relay_embedded_test").query("CREATE (:Fact {id: 'f1', text: 'survives restarts'})"))
      const stopped = yield* stopEmbeddedServer.pipe(inDataDir(dir))
      expect(stopped.wasRunning).toBe(true)
      expect((yield* embeddedStatus.pipe(inDataDir(dir))).running).toBe(false)
      expect(yield* serverPids(dir)).toEqual([])

      const b = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      const pid2 = pidOf(yield* embeddedStatus.pipe(inDataDir(dir)))
      expect(pid2).not.toBe(pid1)
      const reply = yield* withClient(b.socketPath, b.password, (db) =>
        db.selectGraph("relay_embedded_test").query<{ text: string }>(
          "MATCH (f:Fact {id: 'f1'}) RETURN f.text AS text"
        ))
      expect(reply.data).toEqual([{ text: "survives restarts" }])
    }))

  it.scoped("restarts after a SIGKILLed server left its pidfile and socket behind", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDataDir()
      const a = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      const pid1 = pidOf(yield* embeddedStatus.pipe(inDataDir(dir)))
      process.kill(pid1, "SIGKILL")
      yield* pidAlive(pid1).pipe(Effect.repeat({ until: (alive) => !alive, schedule: Schedule.spaced("20 millis") }))
      expect(yield* fs.exists(a.socketPath)).toBe(true)
      expect(yield* fs.exists(`${dir}/falkordb.pid`)).toBe(true)

      const b = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      const s = yield* embeddedStatus.pipe(inDataDir(dir))
      expect(s.running).toBe(true)
      expect(pidOf(s)).not.toBe(pid1)
      expect(b.socketPath).toBe(a.socketPath)
      expect(yield* serverPids(dir)).toEqual([pidOf(s)])
    }))

  it.scoped("recovers a start lock left by a dead process", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDataDir()
      yield* fs.makeDirectory(dir, { recursive: true, mode: 0o700 })
      // A pid that is certainly dead: our own child, already reaped.
      const { spawnSync } = yield* Effect.promise(() => import("node:child_process"))
      const dead = spawnSync(process.execPath, ["-e", "0"]).pid
      yield* fs.writeFileString(`${dir}/start.lock`, `${dead} deadbeef ${Date.parse("2026-01-01")}\n`)
      yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      expect((yield* embeddedStatus.pipe(inDataDir(dir))).running).toBe(true)
      expect(yield* fs.exists(`${dir}/start.lock`)).toBe(false)
    }))

  it.scoped("keeps the data dir 0700 and the password and config files 0600, off the command line", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDataDir()
      const endpoint = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      expect((yield* fs.stat(dir)).mode & 0o777).toBe(0o700)
      expect((yield* fs.stat(`${dir}/password`)).mode & 0o777).toBe(0o600)
      expect((yield* fs.stat(`${dir}/falkordb.conf`)).mode & 0o777).toBe(0o600)
      const pid = pidOf(yield* embeddedStatus.pipe(inDataDir(dir)))
      const cmdline = yield* fs.readFileString(`/proc/${pid}/cmdline`)
      expect(cmdline).not.toContain(Redacted.value(endpoint.password))
      expect(Redacted.value(endpoint.password).length).toBeGreaterThanOrEqual(32)
    }))

  it.scoped("puts the socket in a short directory when the data dir path is too long", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const base = yield* tempDataDir()
      const dir = `${base}/${"d".repeat(120)}`
      const layout = yield* layoutFor(dir)
      // Finalizers run last-added first: stop the server, then remove its socket directory.
      yield* Effect.addFinalizer(() => fs.remove(layout.socketDir, { recursive: true }).pipe(Effect.ignore))
      yield* Effect.addFinalizer(() => stopEmbeddedServer.pipe(inDataDir(dir), Effect.ignore))
      const endpoint = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      expect(layout.socketDir).not.toBe(dir)
      expect(Buffer.byteLength(endpoint.socketPath)).toBeLessThan(104)
      expect(endpoint.socketPath).toMatch(/^\/tmp\/relay-\d+-[0-9a-f]{12}\/falkordb\.sock$/)
      expect((yield* embeddedStatus.pipe(inDataDir(dir))).running).toBe(true)
    }))
})
