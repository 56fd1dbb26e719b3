import { ParseResult, Schema } from "effect"

/** Epoch milliseconds as stored; ISO 8601 UTC with milliseconds as shown. */
export const toIso = (millis: number): string => new Date(millis).toISOString()

const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** An ISO 8601 timestamp with a date, a time and a zone, decoded to epoch milliseconds. */
export const IsoTimestamp = Schema.transformOrFail(
  Schema.String.pipe(
    Schema.pattern(isoPattern, { message: () => "must be an ISO 8601 timestamp such as 2026-01-31T12:00:00.000Z" }),
    Schema.annotations({ description: "ISO 8601 timestamp, e.g. the as_of of your previous briefing" })
  ),
  Schema.Number,
  {
    strict: true,
    decode: (s, _, ast) => {
      const millis = Date.parse(s)
      return Number.isFinite(millis)
        ? ParseResult.succeed(millis)
        : ParseResult.fail(new ParseResult.Type(ast, s, "must be a valid ISO 8601 timestamp"))
    },
    encode: (n) => ParseResult.succeed(toIso(n))
  }
)
