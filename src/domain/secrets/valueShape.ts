/** Whether a value looks machine-made (a secret) or like ordinary configuration, a word or a stand-in. */
// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

/** Shannon entropy in bits per character: random tokens score high, words and paths low. */
export const shannonEntropy = (value: string): number => {
  if (value.length === 0) return 0
  const counts = new Map<string, number>()
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) {
    const p = n / value.length
    bits -= p * Math.log2(p)
  }
  return bits
}

/** Number of character classes present (lower, upper, digit, other). */
export const characterClasses = (value: string): number =>
  (/[a-z]/.test(value) ? 1 : 0) +
  (/[A-Z]/.test(value) ? 1 : 0) +
  (/[0-9]/.test(value) ? 1 : 0) +
  (/[^A-Za-z0-9]/.test(value) ? 1 : 0)

/** Machine-made tokens mix upper, lower and digits; words, kebab-case names and hex do not. */
export const mixedAlphanumeric = (value: string): boolean =>
  /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value)

/** Literal values people write instead of a secret. Compared case-insensitively, whole value. */
const PLACEHOLDER_WORDS = new Set([
  "password",
  "passwd",
  "pass",
  "pwd",
  "secret",
  "token",
  "key",
  "apikey",
  "api_key",
  "changeme",
  "change_me",
  "change-me",
  "changeit",
  "redacted",
  "removed",
  "hidden",
  "masked",
  "none",
  "null",
  "nil",
  "undefined",
  "empty",
  "todo",
  "tbd",
  "test",
  "example",
  "sample",
  "dummy",
  "fake",
  "placeholder",
  "default",
  "admin",
  "root",
  "user",
  "username",
  "guest",
  "foo",
  "bar",
  "baz",
  "xxx",
  "letmein",
  "hunter2"
])

/** Fragments that mark a value as a stand-in (`<password>`, `YOUR_TOKEN_HERE`, `sk-...`). */
const PLACEHOLDER_FRAGMENT =
  /example|redacted|placeholder|changeme|change_me|your[_-]|_here\b|dummy|sample|\*{3}|x{4}|X{4}|\.{3}|…|<|>|\{\{|\}\}/i

/**
 * A value that is not a secret but a reference to one, or a stand-in for one:
 * `${DB_PASSWORD}`, `$TOKEN`, `%API_KEY%`, `process.env.X`, `os.environ["X"]`, `<password>`,
 * `***`, `changeme`, `[REDACTED]`, a single repeated character.
 */
export const looksLikePlaceholder = (raw: string): boolean => {
  const value = raw.replace(/^["'`]+|["'`]+$/g, "")
  if (value.length === 0) return true
  if (PLACEHOLDER_WORDS.has(value.toLowerCase())) return true
  if (/^[$%]/.test(value) || /^\[.*\]$/.test(value) || /^\{.*\}$/.test(value)) return true
  if (/^(?:process\.env|os\.environ|os\.getenv|env\.|ENV\[|getenv|secrets\.)/i.test(value)) return true
  if (PLACEHOLDER_FRAGMENT.test(value)) return true
  if (/^(.)\1*$/.test(value)) return true
  return false
}

/**
 * Whether the value of a `password=` / `token:` style assignment looks like a real secret
 * rather than ordinary configuration. Rejects placeholders, numbers and durations, booleans,
 * paths, URLs (the URL rule judges those), code references (`config.apiKey`, `getToken()`),
 * environment-variable names and lower-case word-like names (`db-credentials`, `vault`).
 * What is left must be at least 8 characters, mix two character classes and not be a
 * low-entropy repetition.
 */
export const looksLikeSecretValue = (raw: string): boolean => {
  const value = raw.replace(/^["'`]+|["'`]+$/g, "").replace(/[.,;:)\]}]+$/, "")
  if (value.length < 8) return false
  if (looksLikePlaceholder(value)) return false
  if (/^\d+$/.test(value) && value.length < 16) return false // ports, PIN lengths, ttl
  if (/^\d+(?:\.\d+)*[a-z]{0,3}$/i.test(value)) return false // versions, 30s, 10MB
  if (/^(?:true|false|yes|no|on|off|enabled|disabled|required|optional)$/i.test(value)) return false
  if (/^(?:~|\.{1,2})?\//.test(value) || /^[A-Za-z]:\\/.test(value)) return false // paths
  if (value.includes("://")) return false
  if (/^[a-z][a-z0-9+-]{1,20}:[a-z0-9_.#:-]*\/[a-z0-9_./#:-]*$/.test(value)) return false // vault:secret/data/x
  if (value.includes("(")) return false // a call: getenv("X"), readFileSync(...)
  if (/^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+(?:\[|$)/.test(value)) return false // config.apiKey, req.headers[
  if (looksLikeKeyPattern(raw.replace(/^["'`]+|["'`]+$/g, "").replace(/[.,;:)]+$/, ""))) return false // auth:fail:{email}:{ip}
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)) return false // DB_PASSWORD (env name)
  if (/^[a-z]+(?:[-_.][a-z0-9]+)*$/.test(value)) return false // db-credentials, vault.kv
  if (/^[a-z]+(?:[A-Z][a-z]+)+$/.test(value) || /^(?:[A-Z][a-z]+)+$/.test(value)) return false // camelCase words
  if (characterClasses(value) < 2) return false
  return shannonEntropy(value) >= 2.5
}

/** One segment of a cache key pattern: a plain word, a `{name}` slot or a `*` wildcard. */
const KEY_SEGMENT = /^(?:[a-z]+(?:[_-][a-z0-9]+)*|\{[A-Za-z_][\w.-]{0,40}\}|\*)$/

/**
 * A Redis or cache key pattern (`fail:{email}:{ip}`, `mfa:pending`, `otp:attempts:*`): plain words,
 * slots and wildcards joined by `:`. Right after `auth:` or `token:` it names where a value lives;
 * a real secret is neither a `{name}` slot nor a run of plain words.
 */
export const looksLikeKeyPattern = (value: string): boolean =>
  /[:{*]/.test(value) && value.split(":").every((segment) => KEY_SEGMENT.test(segment))
