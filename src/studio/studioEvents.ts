import { Clock, Effect, Fiber, Runtime, Schedule } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { positionOf, type RecordPosition } from "../domain/memoryRecord.js"
import { FactStore } from "../services/FactStore.js"
import { securityHeaders, sendJson } from "./studioReplies.js"
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

export const studioEvents = (req: IncomingMessage, res: ServerResponse, session: StudioSession) => {
  const { owner, workspace } = session
  const own = streamsOf.get(owner) ?? 0
  if (own >= eventLimits.perOwner || openStreams >= eventLimits.maxStreams) {
    return sendJson(res, 429, { error: { code: "rate_limited", message: "too many live streams open" } }, {
      "retry-after": "5"
    })
  }
  streamsOf.set(owner, own + 1)
  openStreams++
  res.writeHead(200, {
    ...securityHeaders,
    "content-type": "text/event-stream; charset=utf-8",
    connection: "keep-alive",
    "x-accel-buffering": "no"
  })
  res.write("retry: 1000\n\n")
  const header = req.headers["last-event-id"]
  const resumed = decodeId(typeof header === "string" ? header : undefined)

  const program = Effect.gen(function*() {
    const store = yield* FactStore
    const started = yield* Clock.currentTimeMillis
    // A new stream starts at now (a little before, for a write stamped as it connected); a resumed one after its last id.
    let at: RecordPosition = resumed ?? { stamp: started - 2000, kind: -1, key: "" }
    let sent = 0
    let quietSince = started
    const poll = Effect.gen(function*() {
      if (session.closed || !(yield* Effect.promise(() => workspace.stillValid().catch(() => true)))) return false
      const records = yield* store.recordsAfter(at, eventLimits.batch).pipe(
        Effect.orElseSucceed(() => [])
      )
      const now = yield* Clock.currentTimeMillis
      for (const r of records) {
        at = positionOf(r)
        res.write(`id: ${encodeId(at)}\nevent: record\ndata: ${JSON.stringify(r)}\n\n`)
        sent++
      }
      if (records.length > 0) quietSince = now
      else if (now - quietSince >= eventLimits.keepAliveMillis) {
        res.write(": still here\n\n")
        quietSince = now
      }
      return sent < eventLimits.maxEvents && now - started < eventLimits.maxMillis &&
        res.writableLength <= eventLimits.maxBuffered
    })
    yield* Effect.repeat(poll, {
      schedule: Schedule.spaced(eventLimits.pollMillis),
      while: (goOn) => goOn
    })
  })
  const fiber = Runtime.runFork(workspace.runtime)(program)
  fiber.addObserver(() => res.end())
  res.once("close", () => {
    const left = (streamsOf.get(owner) ?? 1) - 1
    if (left === 0) streamsOf.delete(owner)
    else streamsOf.set(owner, left)
    openStreams--
    void Runtime.runPromise(workspace.runtime)(Fiber.interrupt(fiber))
  })
}
