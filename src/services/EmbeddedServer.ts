import { Context, type Effect, type Option, type Redacted, Schema } from "effect"

/** The files of one embedded server, all inside its data directory (the socket may sit apart: layout.ts). */
export interface EmbeddedLayout {
  readonly dataDir: string
  /** The directory holding the socket: the data dir, or the short fallback. */
  readonly socketDir: string
  readonly socketPath: string
  readonly pidFile: string
  readonly logFile: string
  readonly configFile: string
  readonly passwordFile: string
  readonly lockFile: string
}

/** How to reach a running embedded server. */
export interface EmbeddedEndpoint {
  readonly socketPath: string
  readonly password: Redacted.Redacted<string>
}

export interface EmbeddedStatus {
  readonly dataDir: string
  readonly socketPath: string
  readonly running: boolean
  /** Running but still reading its files (after a restart it replays its append-only file): calls wait. */
  readonly loading: boolean
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

/**
 * The embedded FalkorDB server could not be found, started, joined or stopped.
 * `message` is one sentence meant for the user: it never carries the password.
 */
export class EmbeddedServerError extends Schema.TaggedError<EmbeddedServerError>()("EmbeddedServerError", {
  message: Schema.String
}) {}

/**
 * The embedded FalkorDB of this user's data dir (RELAY_DATA_DIR, else the platform's data directory):
 * started or joined, asked how it is, stopped. Building it touches nothing: only `ensure` starts a
 * server. Implemented by layers/embedded (EmbeddedServerLive).
 */
export class EmbeddedServer extends Context.Tag("relay/EmbeddedServer")<EmbeddedServer, {
  readonly layout: EmbeddedLayout
  /** Starts the server, or joins it; safe from many processes at once. */
  readonly ensure: Effect.Effect<EmbeddedEndpoint, EmbeddedServerError>
  readonly status: Effect.Effect<EmbeddedStatus, EmbeddedServerError>
  readonly stop: Effect.Effect<StopResult, EmbeddedServerError>
}>() {}
