/** A regex rule, optionally with a validator run on each match (first capture group if any). */
export const pattern = (regex: RegExp, validate?: (match: string) => boolean) => (text: string): boolean => {
  // Fresh RegExp objects so no `lastIndex` state leaks between calls.
  const flags = regex.flags.replace("g", "")
  if (validate === undefined) return new RegExp(regex.source, flags).test(text)
  for (const m of text.matchAll(new RegExp(regex.source, flags + "g"))) {
    if (validate(m[1] ?? m[0])) return true
  }
  return false
}

/** `\b`-like guard for token ends: the token is not followed by more token characters. */
export const END = "(?![A-Za-z0-9_-])"
export const START = "(?<![A-Za-z0-9_-])"

export const token = (body: string, flags = ""): RegExp => new RegExp(START + body + END, flags)
