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

/**
 * What shows nothing on screen: whitespace (NEL too, which `\s` misses), control and format
 * characters (zero-width space/joiners, soft hyphen, word joiner, BOM, bidi marks, U+061C, tag
 * characters), other default-ignorable code points (variation selectors, Hangul fillers) and
 * the Braille blank. Text made only of these is a fact nobody can read, or a hidden payload.
 */
const blank = /^[\s\u0085\u2800\p{Cc}\p{Cf}\p{Z}\p{Default_Ignorable_Code_Point}]*$/u

export const trimmedLength = (min: number, max: number, what: string) =>
  Schema.String.pipe(
    Schema.filter((s) => {
      if (unstorable.test(s)) return "must not contain NUL characters or unpaired surrogates"
      const n = characterCount(s.trim())
      if (n < min || n > max) return `must be ${min}-${max} characters after trimming (got ${n})`
      return blank.test(s)
        ? "must contain visible text, not only whitespace, invisible or format characters"
        : undefined
    }),
    Schema.annotations({
      description: what,
      jsonSchema: { type: "string", minLength: min, maxLength: max, description: what }
    })
  )

/** Lengths count after trimming, so "   " is empty and padding cannot sneak past the cap. */
export const FactContent = trimmedLength(1, 2000, "One fact, decision or finding")
export const Reason = trimmedLength(1, 500, "Why")
export const RetractReason = trimmedLength(1, 500, "Why")
