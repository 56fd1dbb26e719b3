/**
 * Finds a server that can run FalkorDB: the `redis-server` bundled in
 * `@falkordblite/linux-x64` if it starts here (it needs glibc 2.38), else
 * `valkey-server` or `redis-server` of version 7.2 or later on PATH. Also
 * locates the FalkorDB module (`falkordb.so`) of that same package.
 */
import { Command, type CommandExecutor, FileSystem, Path } from "@effect/platform"
import { Effect, Option } from "effect"
import { createRequire } from "node:module"
import { EmbeddedServerError } from "./EmbeddedServerError.js"
import { runCommand } from "./runCommand.js"

export interface ServerBinary {
  /** What to execute: an absolute path or a name looked up on PATH. */
  readonly command: string
  /** e.g. "8.0.1" */
  readonly version: string
  readonly source: "bundled" | "path"
}

export const MODULE_PACKAGE = "@falkordblite/linux-x64"

const NO_MODULE = "The FalkorDB module is not installed for this platform (the optional package " +
  `${MODULE_PACKAGE} exists for Linux x64 only), so start FalkorDB with \`docker compose up -d\` ` +
  "from the Relay folder and set FALKORDB_HOST=127.0.0.1, FALKORDB_PORT=6380 and FALKORDB_PASSWORD as in .env.example."

const NO_SERVER = "No server able to run FalkorDB (redis-server or valkey-server 7.2 or later) was found, " +
  "so run `npm run setup-db` from the Relay folder (on Debian 12 as root it installs valkey-server " +
  "from bookworm-backports), or set FALKORDB_URL to a running FalkorDB (e.g. `docker compose up -d`)."

/** The absolute path of `falkordb.so`, if the optional package is installed. */
export const findModule: Effect.Effect<Option.Option<string>, never, FileSystem.FileSystem | Path.Path> = Effect.gen(
  function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const manifest = yield* Effect.try(() => createRequire(import.meta.url).resolve(`${MODULE_PACKAGE}/package.json`))
      .pipe(Effect.option)
    if (Option.isNone(manifest)) return Option.none()
    const so = path.join(path.dirname(manifest.value), "bin", "falkordb.so")
    const exists = yield* fs.exists(so).pipe(Effect.orElseSucceed(() => false))
    return exists ? Option.some(so) : Option.none()
  }
)

export const requireModule: Effect.Effect<string, EmbeddedServerError, FileSystem.FileSystem | Path.Path> = findModule
  .pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(new EmbeddedServerError({ message: NO_MODULE })),
      onSome: Effect.succeed
    }))
  )

const parseVersion = (output: string): Option.Option<string> =>
  Option.fromNullable(/\bv=(\d+\.\d+\.\d+)/.exec(output)?.[1])

/** True for "7.2.0" and later. */
export const supportsFalkor = (version: string): boolean => {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  return major > 7 || (major === 7 && minor >= 2)
}

/** Runs `<command> --version`; Some(version) when it exits 0 with a usable version. */
export const probe = (command: string): Effect.Effect<Option.Option<string>, never, CommandExecutor.CommandExecutor> =>
  runCommand(Command.make(command, "--version"), "5 seconds").pipe(
    Effect.map((r) =>
      r.exitCode === 0 ? parseVersion(r.stdout).pipe(Option.filter(supportsFalkor)) : Option.none<string>()
    ),
    Effect.orElseSucceed(() => Option.none<string>())
  )

const candidates: Effect.Effect<
  ReadonlyArray<{ readonly command: string; readonly source: ServerBinary["source"] }>,
  never,
  FileSystem.FileSystem | Path.Path
> = Effect.gen(function*() {
  const path = yield* Path.Path
  const fs = yield* FileSystem.FileSystem
  const bundled = yield* findModule.pipe(
    Effect.map(Option.map((so) => path.join(path.dirname(so), "redis-server"))),
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(Option.none<string>()),
      onSome: (bin) =>
        fs.exists(bin).pipe(
          Effect.map((ok) => ok ? Option.some(bin) : Option.none()),
          Effect.orElseSucceed(() => Option.none<string>())
        )
    }))
  )
  return [
    ...Option.toArray(bundled).map((command) => ({ command, source: "bundled" as const })),
    { command: "valkey-server", source: "path" as const },
    { command: "redis-server", source: "path" as const }
  ]
})

/** The first runnable server, in the order above. */
export const findServerBinary: Effect.Effect<
  ServerBinary,
  EmbeddedServerError,
  FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> = Effect.gen(function*() {
  for (const candidate of yield* candidates) {
    const version = yield* probe(candidate.command)
    if (Option.isSome(version)) return { ...candidate, version: version.value }
  }
  return yield* new EmbeddedServerError({ message: NO_SERVER })
}).pipe(Effect.withSpan("relay/embedded/findServerBinary"))
