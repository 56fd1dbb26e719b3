import { Command, FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Path from "node:path"
import { currentLayout, ensureEmbeddedServer, stopEmbeddedServer } from "../../src/layers/embedded/EmbeddedServer.js"
import { runCommand } from "../../src/layers/embedded/runCommand.js"
import { findServerBinary } from "../../src/layers/embedded/serverBinary.js"
import { cli, inDataDir, tempDataDir } from "./helpers.js"

/** One command in the append-only file's own form (RESP), as the server wrote it. */
const resp = (...args: ReadonlyArray<string>) =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`

/**
 * Issue 40, finding 8: after a crash the embedded server replays its append-only file before it
 * answers (42-48 s for 31.6 MB), and `npm run db -- status` read that server's LOADING replies as a
 * refused password. Here the file's tail holds many writes (written into the file, not sent: the
 * test pays for no write): while the server replays them, `db status` says so, with its pid.
 */
layer(NodeContext.layer, { excludeTestServices: true })("db status while the server loads its files", (it) => {
  it.scoped("says the server is still loading, and names its pid", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* tempDataDir()
      const layout = yield* currentLayout.pipe(inDataDir(dir))
      yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      expect((yield* stopEmbeddedServer.pipe(inDataDir(dir))).wasRunning).toBe(true)
      // The tail of the append-only file gets 100,000 small writes (a fifth of a millisecond each to
      // replay here; the server answers between every 1,024): it stays loading far longer than the
      // test needs, which kills it then.
      const aofDir = Path.join(dir, "appendonlydir")
      const manifest = yield* fs.readFileString(Path.join(aofDir, "appendonly.aof.manifest"))
      const tail = /^file (\S+) seq \d+ type i$/m.exec(manifest)?.[1]
      expect(tail).toBeDefined()
      const write = resp(
        "GRAPH.QUERY",
        "relay_load",
        "UNWIND range(1, 1000) AS i WITH count(i) AS n MERGE (x:N) SET x.n = n"
      )
      yield* fs.writeFileString(Path.join(aofDir, tail!), resp("SELECT", "0") + write.repeat(100_000), { flag: "a" })
      // Started as Relay starts it (EmbeddedServer.ts): from its config file, daemonized, umask 077.
      const binary = yield* findServerBinary
      const started = yield* runCommand(
        Command.make("/bin/sh", "-c", "umask 077 && exec \"$0\" \"$@\"", binary.command, layout.configFile),
        "20 seconds"
      ).pipe(Effect.orDie)
      expect(started.exitCode).toBe(0)
      // Bounded: a status is a Node process each, and the load lasts far longer than these.
      let text = ""
      for (let i = 0; i < 40 && !text.includes("loading"); i++) {
        const r = yield* cli(dir, ["status"])
        expect(r.stderr).toBe("")
        expect(r.exitCode).toBe(0)
        text = r.stdout
      }
      expect(text).toMatch(/running:\s+yes, still loading its files \(calls wait until it is done\)/)
      const pid = Number((yield* fs.readFileString(layout.pidFile)).trim())
      expect(text).toMatch(new RegExp(`pid:\\s+${pid}\\n`))
      yield* Effect.sync(() => process.kill(pid, "SIGKILL"))
    }))
})
