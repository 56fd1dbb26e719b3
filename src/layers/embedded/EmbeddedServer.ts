/**
 * The embedded default: with no database configured, Relay starts (or joins)
 * one local FalkorDB server per data directory. It listens only on a unix
 * socket, requires a generated password, keeps its data in an fsync'd
 * append-only file and runs daemonized, so it outlives the process that
 * started it and every later Relay process joins it.
 *
 * Start protocol (see lock.ts): join if the socket answers an authenticated
 * PING; otherwise take the exclusive start lock, look again, start the server
 * and wait for it to answer, release. Processes that lose the lock poll (every
 * 100 ms, for at most 12 s) until the socket answers, breaking a stale lock.
 */
import { Command, type CommandExecutor, FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Duration, Effect, Option, Redacted } from "effect"
import { sendCommands } from "../database/serverCommands.js"
import { EmbeddedServerError, fail } from "./EmbeddedServerError.js"
import { currentLayout, type EmbeddedLayout } from "./layout.js"
import { breakIfStale, release, tryAcquire } from "./lock.js"
import { ensurePassword } from "./password.js"
import { type EmbeddedEndpoint, endpoint, isLoading, probeServer, tryJoin } from "./probe.js"
import { livePidFromFile, pidAlive } from "./processes.js"
import { runCommand } from "./runCommand.js"
import { findServerBinary, requireModule } from "./serverBinary.js"
import { renderConfig, runtimeConfig } from "./serverConfig.js"
import { JOIN_WAIT, LOAD_WAIT, NotYet, pollWhileLoading, START_TIMEOUT } from "./waiting.js"

export { EmbeddedServerError } from "./EmbeddedServerError.js"
export { currentLayout, type EmbeddedLayout } from "./layout.js"
export type { EmbeddedEndpoint } from "./probe.js"
export { type EmbeddedStatus, embeddedStatus, embeddedStatusAt } from "./status.js"
export { stopEmbeddedServer, stopEmbeddedServerAt, type StopResult } from "./stop.js"

type Env = FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor

const prepareDirectories = Effect.fn("relay/embedded/prepareDirectories")(function*(layout: EmbeddedLayout) {
  const fs = yield* FileSystem.FileSystem
  const unusable = (dir: string) => (e: PlatformError) =>
    fail(
      `The data directory ${dir} could not be created or secured (${e.message}); set RELAY_DATA_DIR to a writable directory.`
    )
  for (const dir of new Set([layout.dataDir, layout.socketDir])) {
    yield* fs.makeDirectory(dir, { recursive: true, mode: 0o700 }).pipe(Effect.mapError(unusable(dir)))
    const info = yield* fs.stat(dir).pipe(Effect.mapError(unusable(dir)))
    const me = typeof process.getuid === "function" ? process.getuid() : undefined
    if (me !== undefined && Option.isSome(info.uid) && info.uid.value !== me) {
      return yield* fail(`The directory ${dir} belongs to another user; set RELAY_DATA_DIR to a directory of your own.`)
    }
    // Others could already have planted files in it (a symlink for the log, an AOF of their own), so
    // tightening it now would not undo that: refuse it. A dir others may only read is tightened.
    if ((info.mode & 0o022) !== 0) {
      return yield* fail(
        `The directory ${dir} can be written by other users (mode ${(info.mode & 0o777).toString(8)}); ` +
          `check what is in it, then make it yours alone (chmod 700) or set RELAY_DATA_DIR to a new directory.`
      )
    }
    if ((info.mode & 0o777) !== 0o700) yield* fs.chmod(dir, 0o700).pipe(Effect.mapError(unusable(dir)))
  }
})

/**
 * The server creates its AOF, log and pid files (0644) and `appendonlydir` (0755) itself and has no
 * umask option, so it is started from a shell that sets umask 077 first (0600 files, 0700 dirs);
 * `exec` leaves the server as the process the shell was, with its own title and pid.
 */
const underPrivateUmask = (command: string, ...args: ReadonlyArray<string>) =>
  process.platform === "win32"
    ? Command.make(command, ...args)
    : Command.make("/bin/sh", "-c", "umask 077 && exec \"$0\" \"$@\"", command, ...args)

const lastLogLine = (layout: EmbeddedLayout) =>
  FileSystem.FileSystem.pipe(
    Effect.flatMap((fs) => fs.readFileString(layout.logFile)),
    Effect.map((log) => log.trim().split("\n").at(-1)?.replace(/^\d+:[A-Z] [^*#-]*[*#-] /, "").slice(0, 200) ?? ""),
    Effect.orElseSucceed(() => "")
  )

/** Polls until the server answers PONG; fails fast if the started process died. */
const readyOnce = Effect.fn("relay/embedded/readyOnce")(function*(
  layout: EmbeddedLayout,
  password: Redacted.Redacted<string>
) {
  const state = yield* probeServer(layout, password)
  if (state === "ready") return
  const fs = yield* FileSystem.FileSystem
  const pidText = yield* fs.readFileString(layout.pidFile).pipe(Effect.option)
  if (Option.isSome(pidText)) {
    const pid = Number.parseInt(pidText.value.trim(), 10)
    if (Number.isInteger(pid) && !(yield* pidAlive(pid))) {
      const why = yield* lastLogLine(layout)
      return yield* fail(
        `The embedded FalkorDB server exited while starting${why ? ` (${why})` : ""}; see ${layout.logFile}.`
      )
    }
  }
  return yield* new NotYet()
})

/** Said on stderr once when a start outlasts START_TIMEOUT because the server is still loading its data. */
const stillLoading = (layout: EmbeddedLayout) =>
  Effect.logWarning(
    `the embedded FalkorDB server is still loading its data; waiting up to ${Duration.format(LOAD_WAIT)} more`
  ).pipe(Effect.annotateLogs({ socket: layout.socketPath }))

const waitReady = (layout: EmbeddedLayout, password: Redacted.Redacted<string>) =>
  pollWhileLoading(
    readyOnce(layout, password),
    START_TIMEOUT,
    isLoading(layout),
    stillLoading(layout),
    () =>
      lastLogLine(layout).pipe(Effect.flatMap((why) =>
        Effect.fail(
          fail(
            `The embedded FalkorDB server did not answer on ${layout.socketPath} within ${
              Duration.format(START_TIMEOUT)
            }${why ? ` (${why})` : ""}; see ${layout.logFile}.`
          )
        )
      ))
  )

/** Runs with the start lock held: look again, start the server if needed, wait until it answers. */
const startHoldingLock = Effect.fn("relay/embedded/startHoldingLock")(function*(layout: EmbeddedLayout) {
  const fs = yield* FileSystem.FileSystem
  const password = yield* ensurePassword(layout.passwordFile)
  if ((yield* probeServer(layout, password)) === "ready") return endpoint(layout, password)
  // A live server that does not answer yet (e.g. loading a large AOF): wait for it, never start a second one.
  const live = yield* livePidFromFile(layout.pidFile, layout.socketPath)
  if (Option.isNone(live)) {
    const modulePath = yield* requireModule
    const binary = yield* findServerBinary
    const cannotWrite = (e: PlatformError) =>
      fail(`The server configuration ${layout.configFile} could not be written (${e.message}).`)
    yield* fs.writeFileString(layout.configFile, renderConfig(layout, modulePath, password), { mode: 0o600 }).pipe(
      Effect.zipRight(fs.chmod(layout.configFile, 0o600)),
      Effect.mapError(cannotWrite)
    )
    // Leftovers of a crashed server: the server would replace them, but a stale pidfile would confuse waitReady.
    yield* fs.remove(layout.pidFile, { force: true }).pipe(Effect.ignore)
    yield* fs.remove(layout.socketPath, { force: true }).pipe(Effect.ignore)
    const result = yield* runCommand(underPrivateUmask(binary.command, layout.configFile), START_TIMEOUT).pipe(
      Effect.mapError((e) =>
        fail(
          e === "timeout"
            ? `${binary.command} did not daemonize within ${Duration.format(START_TIMEOUT)}; see ${layout.logFile}.`
            : `${binary.command} could not be run (${e.message}).`
        )
      )
    )
    if (result.exitCode !== 0) {
      const why = (result.stderr + "\n" + result.stdout).split("\n").map((l) => l.trim()).filter((l) =>
        l && !/^\*+$/.test(l)
      )
        .join(" ").replaceAll(Redacted.value(password), "<password>").slice(0, 300)
      return yield* fail(
        `${binary.command} ${binary.version} refused to start (exit ${result.exitCode}: ${why}); see ${layout.logFile}.`
      )
    }
  }
  yield* waitReady(layout, password)
  return endpoint(layout, password)
})

/**
 * Starts the embedded FalkorDB server of this data dir, or joins it if it
 * already runs. Safe to call from many processes at once: one starts it.
 */
export const ensureEmbeddedServerAt = (
  layout: EmbeddedLayout
): Effect.Effect<EmbeddedEndpoint, EmbeddedServerError, Env> =>
  Effect.gen(function*() {
    yield* prepareDirectories(layout)
    const attempt = Effect.gen(function*() {
      const joined = yield* tryJoin(layout)
      if (Option.isSome(joined)) return joined.value
      const token = yield* tryAcquire(layout.lockFile)
      if (Option.isSome(token)) {
        return yield* startHoldingLock(layout).pipe(Effect.ensuring(release(token.value)))
      }
      yield* breakIfStale(layout.lockFile)
      return yield* new NotYet()
    })
    const joined = yield* pollWhileLoading(attempt, JOIN_WAIT, isLoading(layout), stillLoading(layout), () =>
      Effect.fail(
        fail(
          `Another process holds ${layout.lockFile} and the embedded FalkorDB server did not answer within ${
            Duration.format(JOIN_WAIT)
          }; see ${layout.logFile}.`
        )
      ))
    // On every join too: the server may have been restarted by another process, which forgets it.
    // Best effort: a server that refuses it still serves, with writes unbounded (FalkorDbLive warns).
    yield* sendCommands(joined.socketPath, joined.password, runtimeConfig, "1 second").pipe(Effect.ignore)
    return joined
  }).pipe(Effect.withSpan("relay/embedded/ensureEmbeddedServer"))

/** The same for the data dir the current settings name (RELAY_DATA_DIR or the platform default). */
export const ensureEmbeddedServer: Effect.Effect<EmbeddedEndpoint, EmbeddedServerError, Env> = Effect.flatMap(
  currentLayout,
  ensureEmbeddedServerAt
)
