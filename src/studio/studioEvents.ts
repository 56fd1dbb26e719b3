import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Clock, Effect, Either, Schedule, Stream } from "effect"
import { positionOf, type RecordPosition } from "../domain/memoryRecord.js"
import { FactStore } from "../services/FactStore.js"
import { refuse, securityHeaders } from "./studioReplies.js"
import type { StudioSession } from "./studioSessions.js"

/**
 * The studio's live feed: a server-sent event stream of its own (the MCP endpoint keeps its
 * contract: GET 405, JSON replies). Every record written to the workspace (fact, decision, compatible
 * record, retraction, as the export writes them) is one `record` event whose id is its position in
 * write order, so a reconnect with Last-Event-ID resumes right after the last event received. It polls
 * the graph every `pollMillis` (writes come from any process), a keyset read of at most
 * `batch` records a poll. Bounded per connection: `maxEvents` events or `maxMillis`, then the stream
 * ends and the browser reconnects from its last id; a client that does not read (over `maxBuffered`
 * bytes queued) is cut. At most `perOwner` streams one token's sessions together (one token fills only
 * its own share) and `maxStreams` in all. A stream ends at its next poll once its session ended or its
 * token was revoked (the same cached check as every request: within RELAY_HTTP_TOKEN_RECHECK_MS).
 * A poll the database does not answer is logged and sent as one `unavailable` event (once an outage,
 * not each poll; EventSource keeps `error` for its own connection errors); the stream goes on polling.
 * The events are an @effect/platform Stream response, written as the client reads: a client that
 * does not read stops the polls and is cut at `maxMillis`, or sooner once `maxBuffered` bytes wait.
 */
export const eventLimits = {
  pollMillis: 300,
  batch: 200,
  maxEvents: 5000,
  maxMillis: 10 * 60_000,
  maxBuffered: 1024 * 1024,
  perOwner: 4,
  maxStreams: 64,
  keepAliveMillis: 15_000
}

let openStreams = 0
const streamsOf = new Map<string, number>()

const encodeId = (p: RecordPosition) => Buffer.from(JSON.stringify([p.stamp, p.kind, p.key])).toString("base64url")

const decodeId = (id: string | undefined): RecordPosition | undefined => {
  if (id === undefined || id.length > 300) return undefined
  try {
    const v: unknown = JSON.parse(Buffer.from(id, "base64url").toString("utf8"))
    if (
      Array.isArray(v) && v.length === 3 && Number.isSafeInteger(v[0]) && Number.isInteger(v[1]) &&
      typeof v[2] === "string" && v[2].length <= 200
    ) return { stamp: v[0] as number, kind: v[1] as number, key: v[2] }
  } catch {
    return undefined
  }
  return undefined
}

/** The next poll's outcome: text to send (maybe none) and whether to poll again. */
interface Polled {
  readonly text: string
  readonly goOn: boolean
}

/** The one event of an outage: `unavailable` for the database's own failure, `internal` for a defect (a bug). */
const unavailableEvent = (cause: Cause.Cause<unknown>) => {
  const error = Cause.isFailType(cause) || Cause.isFailure(cause)
    ? { code: "unavailable", message: "Relay cannot reach its database right now; retrying" }
    : { code: "internal", message: "Relay could not read new records; retrying" }
  return `event: unavailable\ndata: ${JSON.stringify({ error })}\n\n`
}

export const studioEvents = (session: StudioSession) =>
  Effect.gen(function*() {
    const { owner, workspace } = session
    const own = streamsOf.get(owner) ?? 0
    if (own >= eventLimits.perOwner || openStreams >= eventLimits.maxStreams) {
      return refuse(429, "rate_limited", "too many live streams open", { "retry-after": "5" })
    }
    const req = yield* HttpServerRequest.HttpServerRequest
    const res = NodeHttpServerRequest.toServerResponse(req)
    streamsOf.set(owner, own + 1)
    openStreams++
    res.once("close", () => {
      const left = (streamsOf.get(owner) ?? 1) - 1
      if (left === 0) streamsOf.delete(owner)
      else streamsOf.set(owner, left)
      openStreams--
    })
    const header = req.headers["last-event-id"]
    const resumed = decodeId(header)
    const store = yield* Effect.provide(FactStore, workspace.runtime)
    const started = yield* Clock.currentTimeMillis
    // A new stream starts at now (a little before, for a write stamped as it connected); a resumed one after its last id.
    let at: RecordPosition = resumed ?? { stamp: started - 2000, kind: -1, key: "" }
    let sent = 0
    let quietSince = started
    let failing = false
    const poll: Effect.Effect<Polled> = Effect.gen(function*() {
      const valid = yield* Effect.orElseSucceed(workspace.stillValid, () => true)
      if (session.closed || !valid) return { text: "", goOn: false }
      // Every failure of the read, a defect included (an unknown server reply dies in the driver), but
      // not this stream's own interruption.
      const read = yield* store.recordsAfter(at, eventLimits.batch).pipe(
        Effect.map(Either.right),
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.interrupt : Effect.succeed(Either.left(cause))
        )
      )
      const now = yield* Clock.currentTimeMillis
      let text = ""
      if (read._tag === "Left") {
        if (!failing) {
          yield* Effect.logError("relay studio: the live feed could not read new records", read.left)
          text = unavailableEvent(read.left)
        }
        failing = true
      } else {
        failing = false
        for (const r of read.right) {
          at = positionOf(r)
          text += `id: ${encodeId(at)}\nevent: record\ndata: ${JSON.stringify(r)}\n\n`
          sent++
        }
        if (read.right.length > 0) quietSince = now
      }
      if (text === "" && now - quietSince >= eventLimits.keepAliveMillis) {
        text = ": still here\n\n"
        quietSince = now
      }
      return { text, goOn: sent < eventLimits.maxEvents && now - started < eventLimits.maxMillis }
    })
    const events = Stream.repeatEffectWithSchedule(poll, Schedule.spaced(eventLimits.pollMillis)).pipe(
      Stream.takeUntil((p) => !p.goOn),
      Stream.map((p) => p.text),
      Stream.filter((text) => text !== "")
    )
    // Runs beside the polls while the response waits on a client that does not read.
    const overfull = Effect.repeat(Effect.sync(() => res.writableLength > eventLimits.maxBuffered), {
      schedule: Schedule.spaced(eventLimits.pollMillis),
      until: (over) => over
    })
    const cut = Stream.fromEffect(
      Effect.race(overfull, Effect.sleep(eventLimits.maxMillis + eventLimits.keepAliveMillis)).pipe(
        Effect.zipRight(Effect.sync(() => res.destroy()))
      )
    ).pipe(Stream.drain)
    return HttpServerResponse.stream(
      Stream.concat(Stream.make("retry: 1000\n\n"), Stream.merge(events, cut, { haltStrategy: "left" })).pipe(
        Stream.encodeText
      ),
      {
        contentType: "text/event-stream; charset=utf-8",
        headers: { ...securityHeaders, connection: "keep-alive", "x-accel-buffering": "no" }
      }
    )
  })
