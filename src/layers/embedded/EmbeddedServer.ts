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
import { Duration, Effect, Option, Redacted, Schedule, Schema } from "effect"
import { resolveDataDir } from "./dataDir.js"
import { EmbeddedServerError } from "./EmbeddedServerError.js"
import { type EmbeddedLayout, layoutFor } from "./layout.js"
import { breakIfStale, release, tryAcquire } from "./lock.js"
import { ensurePassword, readPassword } from "./password.js"
import { livePidFromFile, pidAlive, signalPid } from "./processes.js"
import { ErrorReply, sendCommands, type Reply } from "../serverCommands.js"
import { infoField, moduleVersion, serverVersion } from "../serverInfo.js"
import { runCommand } from "./runCommand.js"
import { renderConfig, runtimeConfig } from "./serverConfig.js"
import { findServerBinary, requireModule } from "./serverBinary.js"

export { EmbeddedServerError } from "./EmbeddedServerError.js"
export type { EmbeddedLayout } from "./layout.js"

export interface EmbeddedEndpoint {
  readonly socketPath: string
  readonly password: Redacted.Redacted<string>
}

export interface EmbeddedStatus {
  readonly dataDir: string
  readonly socketPath: string
  readonly running: boolean
  readonly pid: Option.Option<number>
  /** FalkorDB module version, e.g. "4.16.3". */
  readonly moduleVersion: Option.Option<string>
  /** e.g. "valkey 8.0.1" */
  readonly serverVersion: Option.Option<string>
}

export interface StopResult {
  readonly dataDir: string
  readonly wasRunning: boolean
  readonly pid: Option.Option<number>
}

type Env = FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor

/** How long a start may take before the server answers; also the losers' wait. */
const START_TIMEOUT = Duration.seconds(10)
const JOIN_WAIT = Duration.seconds(12)
const POLL = Schedule.spaced("100 millis")

/** Internal: the server is not answering yet; retried by the wait loops. */
class NotYet extends Schema.TaggedError<NotYet>()("NotYet", {}) {}

const fail = (message: string) => new EmbeddedServerError({ message })

/** The layout of the data dir this process uses (RELAY_DATA_DIR or the platform default). */
export const currentLayout: Effect.Effect<EmbeddedLayout, EmbeddedServerError, Path.Path> = resolveDataDir.pipe(
  Effect.flatMap(layoutFor)
)

const prepareDirectories = Effect.fn("relay/embedded/prepareDirectories")(function*(layout: EmbeddedLayout) {
  const fs = yield* FileSystem.FileSystem
  const unusable = (dir: string) => (e: PlatformError) =>
    fail(`The data directory ${dir} could not be created or secured (${e.message}); set RELAY_DATA_DIR to a writable directory.`)
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

type Probe = "ready" | "absent" | "busy"

const isReply = (v: Reply): v is ErrorReply => v instanceof ErrorReply

/** Authenticated PING: ready, absent (nothing listens), busy (e.g. LOADING); fails if the password is refused. */
const probeServer = (layout: EmbeddedLayout, password: Redacted.Redacted<string>) =>
  sendCommands(layout.socketPath, password, [["PING"]], "1 second").pipe(
    Effect.flatMap(([reply]): Effect.Effect<Probe, EmbeddedServerError> => {
      if (reply === "PONG") return Effect.succeed("ready")
      if (isReply(reply) && /^(WRONGPASS|NOAUTH|ERR invalid password)/.test(reply.message)) {
        return Effect.fail(
          fail(
            `A server answers on ${layout.socketPath} but refuses the password in ${layout.passwordFile}; stop that server (its pid is in ${layout.pidFile}) and start again.`
          )
        )
      }
      return Effect.succeed("busy")
    }),
    Effect.catchTag("ServerUnreachable", () => Effect.succeed<Probe>("absent"))
  )

const endpoint = (layout: EmbeddedLayout, password: Redacted.Redacted<string>): EmbeddedEndpoint => ({
  socketPath: layout.socketPath,
  password
})

/** Some(endpoint) if a server answers with the stored password now. */
const tryJoin = Effect.fn("relay/embedded/tryJoin")(function*(layout: EmbeddedLayout) {
  const password = yield* readPassword(layout.passwordFile)
  if (Option.isNone(password)) return Option.none<EmbeddedEndpoint>()
  const state = yield* probeServer(layout, password.value)
  return state === "ready" ? Option.some(endpoint(layout, password.value)) : Option.none<EmbeddedEndpoint>()
})

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
      return yield* fail(`The embedded FalkorDB server exited while starting${why ? ` (${why})` : ""}; see ${layout.logFile}.`)
    }
  }
  return yield* new NotYet()
})

const waitReady = (layout: EmbeddedLayout, password: Redacted.Redacted<string>) =>
  readyOnce(layout, password).pipe(
    Effect.retry({ schedule: POLL, while: (e) => e._tag === "NotYet" }),
    Effect.timeoutFail({ duration: START_TIMEOUT, onTimeout: () => new NotYet() }),
    Effect.catchTag("NotYet", () =>
      lastLogLine(layout).pipe(Effect.flatMap((why) =>
        Effect.fail(
          fail(`The embedded FalkorDB server did not answer on ${layout.socketPath} within ${Duration.format(START_TIMEOUT)}${why ? ` (${why})` : ""}; see ${layout.logFile}.`)
        )
      )))
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
    const cannotWrite = (e: PlatformError) => fail(`The server configuration ${layout.configFile} could not be written (${e.message}).`)
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
      const why = (result.stderr + "\n" + result.stdout).split("\n").map((l) => l.trim()).filter((l) => l && !/^\*+$/.test(l))
        .join(" ").replaceAll(Redacted.value(password), "<password>").slice(0, 300)
      return yield* fail(`${binary.command} ${binary.version} refused to start (exit ${result.exitCode}: ${why}); see ${layout.logFile}.`)
    }
  }
  yield* waitReady(layout, password)
  return endpoint(layout, password)
})

/**
 * Starts the embedded FalkorDB server of this user's data dir, or joins it if
 * it already runs. Safe to call from many processes at once: one starts it.
 */
export const ensureEmbeddedServer: Effect.Effect<EmbeddedEndpoint, EmbeddedServerError, Env> = Effect.gen(
  function*() {
    const layout = yield* currentLayout
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
    const joined = yield* attempt.pipe(
      Effect.retry({ schedule: POLL.pipe(Schedule.upTo(JOIN_WAIT)), while: (e) => e._tag === "NotYet" }),
      Effect.catchTag("NotYet", () =>
        Effect.fail(
          fail(`Another process holds ${layout.lockFile} and the embedded FalkorDB server did not answer within ${Duration.format(JOIN_WAIT)}; see ${layout.logFile}.`)
        ))
    )
    // On every join too: the server may have been restarted by another process, which forgets it.
    // Best effort: a server that refuses it still serves, with writes unbounded (FalkorDbLive warns).
    yield* sendCommands(joined.socketPath, joined.password, runtimeConfig, "1 second").pipe(Effect.ignore)
    return joined
  }
).pipe(Effect.withSpan("relay/embedded/ensureEmbeddedServer"))

/** Whether the embedded server of this data dir runs, and what it is. Never fails for a stopped server. */
export const embeddedStatus: Effect.Effect<EmbeddedStatus, EmbeddedServerError, FileSystem.FileSystem | Path.Path> = Effect
  .gen(function*() {
    const layout = yield* currentLayout
    const base = { dataDir: layout.dataDir, socketPath: layout.socketPath }
    const livePid = yield* livePidFromFile(layout.pidFile, layout.socketPath)
    const stopped: EmbeddedStatus = {
      ...base,
      running: false,
      pid: livePid,
      moduleVersion: Option.none(),
      serverVersion: Option.none()
    }
    const password = yield* readPassword(layout.passwordFile)
    if (Option.isNone(password)) return stopped
    const replies = yield* sendCommands(layout.socketPath, password.value, [["MODULE", "LIST"], ["INFO", "server"]]).pipe(
      Effect.option
    )
    if (Option.isNone(replies)) return stopped
    const [modules, info] = replies.value
    if (isReply(modules) || isReply(info)) {
      return yield* fail(`A server answers on ${layout.socketPath} but refuses the password in ${layout.passwordFile}.`)
    }
    return {
      ...base,
      running: true,
      pid: infoField(info, "process_id").pipe(Option.map(Number), Option.orElse(() => livePid)),
      moduleVersion: moduleVersion(modules),
      serverVersion: serverVersion(info)
    }
  }).pipe(Effect.withSpan("relay/embedded/embeddedStatus"))

const waitGone = (pid: number, within: Duration.DurationInput) =>
  pidAlive(pid).pipe(
    Effect.flatMap((alive) => alive ? Effect.fail(new NotYet()) : Effect.void),
    Effect.retry(POLL.pipe(Schedule.upTo(within))),
    Effect.as(true),
    Effect.orElseSucceed(() => false)
  )

/** Holds the start lock while running `effect`, so no process starts the server meanwhile. */
const withStartLock = <A, E, R>(layout: EmbeddedLayout, effect: Effect.Effect<A, E, R>) =>
  tryAcquire(layout.lockFile).pipe(
    Effect.flatMap(Option.match({
      onSome: Effect.succeed,
      onNone: () => breakIfStale(layout.lockFile).pipe(Effect.zipRight(Effect.fail(new NotYet())))
    })),
    Effect.retry({ schedule: POLL.pipe(Schedule.upTo(JOIN_WAIT)), while: (e) => e._tag === "NotYet" }),
    Effect.catchTag("NotYet", () => Effect.fail(fail(`Another process holds ${layout.lockFile}; try again in a few seconds.`))),
    Effect.flatMap((token) => effect.pipe(Effect.ensuring(release(token))))
  )

/**
 * Stops the embedded server of this data dir: SHUTDOWN (which fsyncs the AOF),
 * then SIGTERM if it is still alive after 10 s. A stopped server is not an error.
 */
export const stopEmbeddedServer: Effect.Effect<StopResult, EmbeddedServerError, FileSystem.FileSystem | Path.Path> = Effect
  .gen(function*() {
    const layout = yield* currentLayout
    return yield* withStartLock(
      layout,
      Effect.gen(function*() {
        const status = yield* embeddedStatus.pipe(Effect.option)
        const pid = Option.flatMap(status, (s) => s.pid)
        const running = Option.exists(status, (s) => s.running)
        if (running) {
          const password = yield* readPassword(layout.passwordFile)
          if (Option.isSome(password)) {
            yield* sendCommands(layout.socketPath, password.value, [["SHUTDOWN"]], "5 seconds").pipe(Effect.ignore)
          }
        }
        if (Option.isNone(pid)) return { dataDir: layout.dataDir, wasRunning: running, pid }
        if (!(yield* waitGone(pid.value, running ? "10 seconds" : "0 millis"))) {
          yield* signalPid(pid.value, "SIGTERM")
          if (!(yield* waitGone(pid.value, "10 seconds"))) {
            return yield* fail(`The embedded FalkorDB server (pid ${pid.value}) did not stop within 20 seconds.`)
          }
        }
        return { dataDir: layout.dataDir, wasRunning: true, pid }
      })
    )
  }).pipe(Effect.withSpan("relay/embedded/stopEmbeddedServer"))
