/**
 * Characters that show nothing (or nothing a reader can tell apart) and change no meaning a
 * secret depends on: every format character (Cf: ZWSP, ZWJ, ZWNJ, word joiner, soft hyphen,
 * BOM, LRM/RLM and bidi controls, U+061C, U+180E, invisible operators U+2061-2064, tag
 * characters U+E0000-E007F, ...), every default-ignorable code point (variation selectors,
 * the combining grapheme joiner, Hangul fillers, U+115F/U+1160/U+3164/U+FFA0), the blank Braille
 * pattern U+2800, and control characters other than tab and the line breaks.
 */
export const invisibleCharacters =
  /[\p{Cf}\p{Default_Ignorable_Code_Point}\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u2800]/gu

/** Line breaks other than `\n` and `\r`: a reader may not see one that splits a token. */
const oddLineBreaks = /[\u0085\u2028\u2029]/g

/**
 * Combining marks (U+0332 low line, U+0336 long stroke overlay, ...) decorate the character before
 * them: a token with marks on it pastes and works as the secret once the marks are dropped.
 */
const combiningMarks = /[\p{Mn}\p{Me}]/gu

/** Whether the text holds anything the two copies of `scanCopy` treat differently. */
export const hidesTokenEnds = (text: string): boolean =>
  new RegExp(invisibleCharacters.source, "u").test(text) || /[\u0085\u2028\u2029]/.test(text)

/**
 * What the scanner reads instead of the text: combining marks dropped; invisible characters and
 * the odd line breaks (NEL, U+2028/9) removed, so `gh\u200bp_...` is `ghp_...` again, or, in the
 * second copy, invisible characters made a space and the line breaks `\n` (so `AKIA...\u200bmore`
 * still ends the token where a reader sees it end); every other space (NBSP, en/em/thin spaces,
 * U+3000, ...) a plain one, since rules match a literal space or `[ \t]`; then NFKC, which folds
 * fullwidth and mathematical letters and digits to ASCII. Both copies are clean, so the value
 * heuristics (placeholder, user equals password) judge what a reader sees rather than a value
 * salted with invisible characters. Plain ASCII text is its own copy.
 */
export const scanCopy = (text: string, invisibleAs = ""): string =>
  text
    .replace(combiningMarks, "")
    .replace(oddLineBreaks, invisibleAs === "" ? "" : "\n")
    .replace(invisibleCharacters, invisibleAs)
    .replace(/[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g, " ")
    .normalize("NFKC")
