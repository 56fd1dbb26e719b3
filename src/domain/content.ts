import { Schema } from "effect"

/** The contract's normalised content: trim, collapse whitespace runs to one space, lowercase. */
export const normaliseContent = (content: string): string => content.trim().replace(/\s+/g, " ").toLowerCase()

/** Characters, as a person (and JSON Schema's maxLength) counts them: code points, so an emoji is one. */
export const characterCount = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

/**
 * Text that cannot round-trip: FalkorDB's query parser stops at a NUL (the write would fail as if the
 * database were down), and an unpaired UTF-16 surrogate is stored as U+FFFD. Both are refused as
 * input instead. Every other character, control characters included, is stored as given.
 */
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const trimmedLength = (min: number, max: number, what: string) =>
  Schema.String.pipe(
    Schema.filter((s) => {
      if (unstorable.test(s)) return "must not contain NUL characters or unpaired surrogates"
      const n = characterCount(s.trim())
      return n >= min && n <= max ? undefined : `must be ${min}-${max} characters after trimming (got ${n})`
    }),
    Schema.annotations({ description: what, jsonSchema: { type: "string", minLength: min, maxLength: max } })
  )

/** Lengths count after trimming, so "   " is empty and padding cannot sneak past the cap. */
export const FactContent = trimmedLength(1, 2000, "The fact, decision or finding, in one or a few sentences")
export const Reason = trimmedLength(1, 500, "Why the winner wins")
