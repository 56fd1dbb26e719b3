import { Duration, Effect, Schedule, Schema } from "effect"

/** How long a start may take before the server answers; also the losers' wait. */
export const START_TIMEOUT = Duration.seconds(10)
export const JOIN_WAIT = Duration.seconds(12)
/**
 * How long a server that answers LOADING may take: it is replaying its data (a 1M-fact memory takes
 * longer than START_TIMEOUT), which is progress, not a hang; a start gives up only after this.
 */
export const LOAD_WAIT = Duration.minutes(10)
/** One pace for every wait on the server: answering, gone, the start lock free. */
const POLL = Schedule.spaced("100 millis")

/** Internal: the server is not answering yet (or not gone yet); retried by the wait loops. */
export class NotYet extends Schema.TaggedError<NotYet>()("NotYet", {}) {}

/**
 * The one wait loop: runs `attempt` again at the POLL pace while it fails with NotYet, starting no new
 * attempt after `within`; then answers `onTimeout`. Any other failure ends the wait at once.
 */
export const pollUntil = <A, E, R, A2, E2, R2>(
  attempt: Effect.Effect<A, E | NotYet, R>,
  within: Duration.DurationInput,
  onTimeout: () => Effect.Effect<A2, E2, R2>
): Effect.Effect<A | A2, Exclude<E, NotYet> | E2, R | R2> =>
  attempt.pipe(
    Effect.retry({ schedule: POLL.pipe(Schedule.upTo(within)), while: (e) => e instanceof NotYet }),
    Effect.catchIf((e): e is NotYet => e instanceof NotYet, onTimeout)
  ) as Effect.Effect<A | A2, Exclude<E, NotYet> | E2, R | R2>

/**
 * pollUntil with a second, longer wait for a server that is loading its data: when `within` ends
 * and `loading` says the server is still replaying, the wait goes on up to `LOAD_WAIT` more (after
 * `onLoading`, e.g. a line on stderr), and only then answers `onTimeout`.
 */
export const pollWhileLoading = <A, E, R, A2, E2, R2, E3, R3>(
  attempt: Effect.Effect<A, E | NotYet, R>,
  within: Duration.DurationInput,
  loading: Effect.Effect<boolean, E3, R3>,
  onLoading: Effect.Effect<void>,
  onTimeout: () => Effect.Effect<A2, E2, R2>
) =>
  pollUntil(attempt, within, () =>
    Effect.flatMap(
      Effect.orElseSucceed(loading, () => false),
      (still) => still ? Effect.zipRight(onLoading, pollUntil(attempt, LOAD_WAIT, onTimeout)) : onTimeout()
    ))
