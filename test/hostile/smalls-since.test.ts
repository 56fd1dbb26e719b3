import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { decodeInput } from "../../src/mcp/callTool.js"
import { getBriefing } from "../../src/tools/getBriefing.js"

/** `since` as relay_get_briefing decodes it: epoch millis, or the invalid_input message. */
const since = (stamp: string) =>
  Effect.runSync(Effect.either(decodeInput(getBriefing, { my_name: "cursor", since: stamp }))).pipe(
    Either.map((input) => (input as { since: number }).since)
  )

const at = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => {
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  date.setUTCHours(h, mi, s, ms)
  return date.getTime()
}

describe("since: real calendar dates only (issue 9)", () => {
  const valid: ReadonlyArray<[string, number]> = [
    ["2026-03-01T00:00:00Z", at(2026, 3, 1)],
    ["2026-02-28T23:59:59.999Z", at(2026, 2, 28, 23, 59, 59, 999)],
    ["2024-02-29T12:00:00Z", at(2024, 2, 29, 12)], // leap year
    ["2000-02-29T00:00:00Z", at(2000, 2, 29)], // divisible by 400: leap
    ["2026-04-30T00:00Z", at(2026, 4, 30)], // seconds are optional
    ["2026-12-31T23:59:59Z", at(2026, 12, 31, 23, 59, 59)],
    ["2026-03-01T05:30:00+05:30", at(2026, 3, 1)],
    ["2026-03-01T05:30:00+0530", at(2026, 3, 1)],
    ["2026-02-28T19:00:00-05:00", at(2026, 3, 1)],
    ["2026-03-01T00:00:00+00:00", at(2026, 3, 1)],
    ["2026-03-01T00:00:00.123456789Z", at(2026, 3, 1, 0, 0, 0, 123)], // nanoseconds, cut to milliseconds
    ["0050-06-15T00:00:00Z", at(50, 6, 15)] // not read as 1950
  ]
  it.each(valid)("accepts %s", (stamp, millis) => {
    expect(since(stamp)).toEqual(Either.right(millis))
  })

  const invalid = [
    "2026-02-30T00:00:00Z", // was read as 2 March
    "2026-02-29T00:00:00Z", // 2026 is no leap year
    "1900-02-29T00:00:00Z", // divisible by 100, not 400: no leap year
    "2026-04-31T00:00:00Z",
    "2026-00-10T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-01-00T00:00:00Z",
    "2026-01-32T00:00:00Z",
    "2026-01-01T24:00:00Z", // was read as the next day
    "2026-01-01T24:00Z",
    "2026-01-01T23:60:00Z",
    "2026-12-31T23:59:60Z", // leap second
    "2026-03-01T00:00:00+24:00",
    "2026-03-01T00:00:00+05:60",
    "2026-03-01T00:00:00+99:99",
    "2026-03-01T00:00:00", // no zone
    "2026-03-01 00:00:00Z"
  ]
  it("says what is wrong in words", () => {
    const error = Either.flip(since("2026-02-30T00:00:00Z")).pipe(Either.getOrThrow)
    expect(error.message).toBe("since: must be a real date and time (e.g. no 30 February, no hour 24)")
  })

  it.each(invalid)("refuses %s as invalid_input naming since, without echoing it", (stamp) => {
    const error = Either.flip(since(stamp)).pipe(Either.getOrThrow)
    expect(error.code).toBe("invalid_input")
    expect(error.message).toMatch(/^since: must be /)
    expect(error.message).not.toContain(stamp.slice(0, 10))
  })
})
