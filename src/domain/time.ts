import { ParseResult, Schema } from "effect"

/** Epoch milliseconds as stored; ISO 8601 UTC with milliseconds as shown. */
export const toIso = (millis: number): string => new Date(millis).toISOString()

/**
 * A stamp as the graph stores it: whole epoch milliseconds within a Date's range (ECMAScript's
 * ±8.64e15), so `toIso` of it cannot throw and `Date.parse` of that ISO text gives it back exactly.
 */
export const Stamp = Schema.Int.pipe(Schema.between(-8.64e15, 8.64e15))

/** A stored stamp decoded to how every reply shows it. */
export const IsoFromStamp = Schema.transform(Stamp, Schema.String, {
  strict: true,
  decode: toIso,
  encode: (iso) => Date.parse(iso)
})

const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/
const isoFields = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):?(\d{2}))$/

/**
 * The instant a stamp names, or undefined when its fields are not a real date and time. Date.parse
 * rolls impossible fields over (2026-02-30 is read as 2 March, 24:00 as the next day), so every
 * calendar field must come back unchanged from the UTC date built out of them: that refuses 30
 * February, 29 February outside leap years, hour 24, minute 60 and leap second 60. Offsets are
 * RFC 3339's: hours 00-23, minutes 00-59.
 */
export const parseIsoTimestamp = (stamp: string): number | undefined => {
  const m = isoFields.exec(stamp)
  if (m === null) return undefined
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((f) => Number(f ?? "0")) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const millis = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3))
  const offsetHours = Number(m[9] ?? "0")
  const offsetMinutes = Number(m[10] ?? "0")
  if (offsetHours > 23 || offsetMinutes > 59) return undefined
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, millis)
  const roundTrips = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day && date.getUTCHours() === hour && date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  if (!roundTrips) return undefined
  const sign = m[8] === "-" ? -1 : 1
  return date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000
}

/** An ISO 8601 timestamp with a date, a time and a zone, decoded to epoch milliseconds. */
export const IsoTimestamp = Schema.transformOrFail(
  Schema.String.pipe(
    Schema.pattern(isoPattern, {
      message: () => "must be an ISO 8601 date and time with a zone, such as 2026-01-31T12:00:00Z"
    }),
    Schema.annotations({ description: "A time with zone, e.g. 2026-01-31T12:00:00Z" })
  ),
  Schema.Number,
  {
    strict: true,
    decode: (s, _, ast) => {
      const millis = parseIsoTimestamp(s)
      return millis === undefined
        ? ParseResult.fail(
          new ParseResult.Type(ast, s, "must be a real date and time (e.g. no 30 February, no hour 24)")
        )
        : ParseResult.succeed(millis)
    },
    encode: (n) => ParseResult.succeed(toIso(n))
  }
)
