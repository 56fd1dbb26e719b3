import type { RequestId } from "@modelcontextprotocol/sdk/types.js"

/** Deeper than any message of MCP (a batch of calls with a list in their arguments is 5). */
export const maxNesting = 32

/**
 * Whether JSON text nests arrays and objects at most `max` deep, brackets inside strings aside.
 * Checked before parsing: a body of a few MB of `[` took two seconds of CPU to parse, and decoding
 * what it made overflowed the stack (arguments 5,000 deep answered `internal`), so one client could
 * stall every other session.
 */
export const nestsAtMost = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash: the next character is escaped
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return false
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return true
}

const idValue = /\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?![\d.eE]))/y

/**
 * The `id` member of the outermost object of JSON text, found without parsing it (the text may be
 * too deep to parse, or not JSON at all past the id): one pass, brackets inside strings aside.
 */
export const topLevelId = (text: string): RequestId | undefined => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const start = i
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++
      if (depth !== 1 || text.slice(start, i + 1) !== `"id"`) continue
      idValue.lastIndex = i + 1
      const found = idValue.exec(text)?.[1]
      // `"id"` as a value (`"method":"id"`) is followed by no colon: go on looking.
      if (found !== undefined) return idOf(JSON.parse(found))
    } else if (c === 0x5b || c === 0x7b) depth++
    else if (c === 0x5d || c === 0x7d) depth--
  }
  return undefined
}

/** A JSON-RPC id as the SDK types it: a string or a whole number. */
export const idOf = (value: unknown): RequestId | undefined =>
  typeof value === "string" || Number.isSafeInteger(value) ? value as RequestId : undefined
