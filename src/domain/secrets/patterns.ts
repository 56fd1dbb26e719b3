/** A regex rule, optionally with a validator run on each match (first capture group if any). */
export const pattern = (regex: RegExp, validate?: (match: string) => boolean) => {
  // Compiled once, not a call: no state leaks between calls, as `test` without the g flag reads no
  // `lastIndex` and `matchAll` matches on a copy of its regex.
  const flags = regex.flags.replace("g", "")
  const once = new RegExp(regex.source, flags)
  const every = new RegExp(regex.source, flags + "g")
  return (text: string): boolean => {
    if (validate === undefined) return once.test(text)
    for (const m of text.matchAll(every)) {
      if (validate(m[1] ?? m[0])) return true
    }
    return false
  }
}

/** `\b`-like guard for token ends: the token is not followed by more token characters. */
export const END = "(?![A-Za-z0-9_-])"
export const START = "(?<![A-Za-z0-9_-])"

export const token = (body: string, flags = ""): RegExp => new RegExp(START + body + END, flags)
