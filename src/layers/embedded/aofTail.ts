import { Effect, Option, type Redacted } from "effect"
import { sendCommands } from "../database/serverCommands.js"
import { infoField } from "../database/serverInfo.js"

/**
 * The most append-only file written since the last rewrite that Relay lets stand. After a SIGKILL the
 * server replays that tail query by query before it answers: 31.6 MB took 42-48 s (every call
 * `unavailable` meanwhile), the file's rewritten base 2.4 s (issue 40). About 1 MB replays in a second
 * there, so 1 MiB keeps the tail's share of a restart near a second; the server's own trigger
 * (`auto-aof-rewrite-percentage`, at least 1% of the base) lets the tail grow with the graph.
 */
export const aofTailBudget = 1024 * 1024

/** How often a Relay on the embedded server looks at the tail. */
export const aofCheckEvery = "30 seconds"

const numberField = (info: unknown, key: string) =>
  infoField(info, key).pipe(Option.map(Number), Option.filter(Number.isFinite))

/**
 * Asks the server for a rewrite (BGREWRITEAOF: a forked child writes the new base, the server goes on
 * answering) when the tail passes `budget` bytes and no rewrite or load is under way. True when it
 * asked. Several Relays on one server may ask at once: the server runs one rewrite and refuses or
 * schedules the rest.
 */
export const rewriteLongTail = (socketPath: string, password: Redacted.Redacted<string>, budget = aofTailBudget) =>
  Effect.gen(function*() {
    const [info] = yield* sendCommands(socketPath, password, [["INFO", "persistence"]], "1 second")
    const current = numberField(info, "aof_current_size")
    const base = numberField(info, "aof_base_size")
    const busy = ["aof_rewrite_in_progress", "aof_rewrite_scheduled", "loading"].some((k) =>
      Option.getOrElse(infoField(info, k), () => "0") !== "0"
    )
    if (busy || Option.isNone(current) || Option.isNone(base) || current.value - base.value <= budget) return false
    yield* sendCommands(socketPath, password, [["BGREWRITEAOF"]], "1 second")
    yield* Effect.logInfo("asked the embedded server to rewrite its append-only file").pipe(
      Effect.annotateLogs({ tailBytes: current.value - base.value })
    )
    return true
  })
