/**
 * Real-process helpers for the embedded server tests: each test gets its own
 * temporary RELAY_DATA_DIR, and a finalizer stops (then, as a last resort,
 * SIGKILLs) every server serving that directory, so no process outlives a test.
 */
import { Command, FileSystem } from "@effect/platform"
import { ConfigProvider, Effect, Option } from "effect"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { stopEmbeddedServer } from "../../src/layers/embedded/EmbeddedServer.js"
import { runCommand } from "../../src/layers/embedded/runCommand.js"

export const repoRoot = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..", "..")
export const cliPath = Path.join(repoRoot, "dist", "cli", "db.js")

/** Runs `effect` with RELAY_DATA_DIR = dir (and nothing else) as its configuration. */
export const inDataDir = (dir: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.withConfigProvider(effect, ConfigProvider.fromMap(new Map([["RELAY_DATA_DIR", dir]])))

/** Pids of server processes serving a socket under `dir` (Linux process titles). */
export const serverPids = (dir: string) =>
  runCommand(Command.make("pgrep", "-f", `unixsocket:${dir}`), "5 seconds").pipe(
    Effect.map((r) => r.stdout.split("\n").filter((l) => l.trim() !== "").map(Number)),
    Effect.orDie
  )

const killLeftovers = (dir: string) =>
  serverPids(dir).pipe(
    Effect.flatMap((pids) =>
      Effect.sync(() => {
        for (const pid of pids) {
          try {
            process.kill(pid, "SIGKILL")
          } catch {
            // already gone
          }
        }
      })
    ),
    Effect.ignore
  )

/**
 * A fresh data directory under the OS temp dir (name prefix `relay-test-`),
 * removed at the end of the scope after every server serving it is stopped.
 * `extraDirs` are removed too (e.g. a short socket directory).
 */
export const tempDataDir = (name = "relay-test-") =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const base = yield* fs.makeTempDirectoryScoped({ directory: Os.tmpdir(), prefix: name }).pipe(Effect.orDie)
    const dir = Path.join(base, "data")
    yield* Effect.addFinalizer(() =>
      stopEmbeddedServer.pipe(inDataDir(dir), Effect.ignore, Effect.zipRight(killLeftovers(dir)))
    )
    return dir
  })

export interface CliResult {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

/** `node dist/cli/db.js <args>` with RELAY_DATA_DIR = dir. */
export const cli = (dir: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  runCommand(
    Command.make(process.execPath, cliPath, ...args).pipe(Command.env({ RELAY_DATA_DIR: dir, ...env })),
    "25 seconds"
  ).pipe(Effect.orDie)

export interface StatusJson {
  readonly running: boolean
  readonly pid: number | null
  readonly dataDir: string
  readonly socketPath: string
  readonly moduleVersion: string | null
  readonly serverVersion: string | null
}

export const parseStatus = (r: CliResult): StatusJson => {
  if (r.exitCode !== 0) throw new Error(`db.js exited ${r.exitCode}: ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "") as StatusJson
}

export const pidOf = (s: { readonly pid: Option.Option<number> }): number =>
  Option.getOrThrowWith(s.pid, () => new Error("no pid"))
