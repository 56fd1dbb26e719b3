import { Duration, Schedule, Schema } from "effect"

/** How long a start may take before the server answers; also the losers' wait. */
export const START_TIMEOUT = Duration.seconds(10)
export const JOIN_WAIT = Duration.seconds(12)
/** One pace for every wait on the server: answering, gone, the start lock free. */
export const POLL = Schedule.spaced("100 millis")

/** Internal: the server is not answering yet (or not gone yet); retried by the wait loops. */
export class NotYet extends Schema.TaggedError<NotYet>()("NotYet", {}) {}
