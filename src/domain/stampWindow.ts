import type { MemoryRecord } from "./memoryRecord.js"

/**
 * The stamps a graph takes in: from 1970 (epoch 0) to the Clock's now plus `ahead` (default five
 * minutes, for clocks a little apart; RELAY_STAMP_AHEAD_SECONDS widens it). A stamp at the edge of
 * what a Date holds (+275760-09-13) left no room for the clock's next stamp, so every later save
 * failed to read back; one in year 9999 moved the clock there for every later write. An import
 * refuses a record stamped outside (its line named, nothing written), the clock never takes a stamp
 * of a file past now, and `check-db --verify` names what an older Relay let in.
 */
export const defaultStampAhead = 5 * 60_000

/** The fields of a record that hold a stamp, with its name. */
const stampsOf = (r: MemoryRecord): ReadonlyArray<readonly [string, string]> => {
  if (r.kind !== "task") return [["created_at", r.created_at]]
  return [
    ["created_at", r.created_at],
    ...(r.decided_at === null ? [] : [["decided_at", r.decided_at] as const]),
    ...(r.last_finish === null ? [] : [["last_finish.created_at", r.last_finish.created_at] as const])
  ]
}

export const inWindow = (millis: number, now: number, ahead: number): boolean => millis >= 0 && millis <= now + ahead

/** What is wrong with the record's stamps, naming the field, or undefined when each is inside the window. */
export const stampOutside = (r: MemoryRecord, now: number, ahead: number): string | undefined => {
  for (const [field, iso] of stampsOf(r)) {
    if (!inWindow(Date.parse(iso), now, ahead)) {
      return `${field}: ${iso} is outside the stamps this memory takes (1970-01-01 to ${
        Math.round(ahead / 1000)
      } s past now; RELAY_STAMP_AHEAD_SECONDS widens it)`
    }
  }
  return undefined
}
