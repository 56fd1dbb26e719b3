/**
 * Fact text as one JSON string literal: quotes, backslashes and C0 controls (line breaks too) are
 * escaped, so stored text cannot end the quote or start a line of its own. JSON leaves raw what
 * some readers treat as a line break (NEL U+0085, U+2028/2029), what they show as nothing while a
 * model still reads it (C1 controls and DEL, zero-width characters, soft hyphen, word joiner, BOM,
 * tag characters U+E0000-E007F, variation selectors, Hangul fillers: every format character and
 * default-ignorable code point) and what reorders the line (bidi marks, overrides and isolates,
 * U+061C). Each is escaped as `\uXXXX`, an astral one as its surrogate pair (`\udb40\udc41`), so
 * the literal stays valid JSON. structuredContent keeps the exact text.
 *
 * In the domain because the reply's byte measure (paging.ts) escapes exactly as the text block does.
 */
const unseen = /[\u007f-\u009f\u2028\u2029\p{Cf}\p{Default_Ignorable_Code_Point}]/gu
const escapeUnits = (c: string): string => {
  let out = ""
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`
  return out
}

/** Text already in JSON form with every unseen character escaped as the text block shows it. */
export const escapeUnseen = (json: string): string => json.replace(unseen, escapeUnits)

export const quote = (text: string): string => escapeUnseen(JSON.stringify(text))
