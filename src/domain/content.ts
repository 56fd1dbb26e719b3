import { Schema } from "effect"

/** The contract's normalised content: trim, collapse whitespace runs to one space, lowercase. */
export const normaliseContent = (content: string): string => content.trim().replace(/\s+/g, " ").toLowerCase()

const trimmedLength = (min: number, max: number, what: string) =>
  Schema.String.pipe(
    Schema.filter((s) => {
      const n = s.trim().length
      return n >= min && n <= max ? undefined : `must be ${min}-${max} characters after trimming (got ${n})`
    }),
    Schema.annotations({ description: what, jsonSchema: { type: "string", minLength: min, maxLength: max } })
  )

/** Lengths count after trimming, so "   " is empty and padding cannot sneak past the cap. */
export const FactContent = trimmedLength(1, 2000, "The fact, decision or finding, in one or a few sentences")
export const Reason = trimmedLength(1, 500, "Why the winner wins")
