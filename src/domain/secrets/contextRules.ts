/** Rules that need context around a value: where it sits (an assignment, a URL, a header, a command line) and whether it looks real. */
import { pattern, token } from "./patterns.js"
import {
  characterClasses,
  looksLikePlaceholder,
  looksLikeSecretValue,
  mixedAlphanumeric,
  shannonEntropy
} from "./valueShape.js"
// ---------------------------------------------------------------------------
// Context rules
// ---------------------------------------------------------------------------

/**
 * AWS secret access key: 40 base64-ish characters, only when the text talks about AWS or a
 * secret key. The candidate must mix upper, lower and digits (a git SHA is lower-case hex),
 * be high-entropy and not look like a path (few slashes).
 */
export const awsSecretKey = (text: string): boolean => {
  if (!/aws|secret[\s_-]?(?:access[\s_-]?)?key/i.test(text)) return false
  for (const m of text.matchAll(/(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g)) {
    const candidate = m[0]
    const slashes = candidate.split("/").length - 1
    if (mixedAlphanumeric(candidate) && slashes <= 3 && shannonEntropy(candidate) >= 4.2) return true
  }
  return false
}

/**
 * Credentials in a URL: `scheme://user:pass@host`. `user@host` (no password) passes, and so
 * do obvious stand-ins: an empty password, a placeholder (`user:password@`, `:<pass>@`,
 * `:${PASS}@`, `:***@`) and a password equal to the user name (`postgres:postgres@`,
 * `guest:guest@`), the well-known local defaults that documentation is full of.
 */
export const urlWithCredentials = (text: string): boolean => {
  const re = /\b[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/([^\s/:@"'`]{0,64}):([^\s/@"'`]{1,128})@[A-Za-z0-9[]/g
  for (const m of text.matchAll(re)) {
    const user = m[1] ?? ""
    const password = decodeURIComponentSafe(m[2] ?? "")
    if (password.length === 0) continue
    if (password === user) continue
    if (looksLikePlaceholder(password)) continue
    return true
  }
  return false
}

const decodeURIComponentSafe = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/**
 * `Authorization: Basic <base64>`: only when it decodes to `user:password` with a real
 * password, so the base64 of `user:pass` in documentation passes.
 */
export const basicAuth = (text: string): boolean => {
  for (const m of text.matchAll(/\bBasic\s+([A-Za-z0-9+/]{8,256}={0,2})(?![A-Za-z0-9+/=])/g)) {
    let decoded: string
    try {
      decoded = atob(m[1] ?? "")
    } catch {
      continue
    }
    const colon = decoded.indexOf(":")
    if (colon < 1) continue
    const user = decoded.slice(0, colon)
    const password = decoded.slice(colon + 1)
    if (!/^[\x20-\x7e]+$/.test(decoded)) continue
    if (password.length >= 4 && password !== user && !looksLikePlaceholder(password)) return true
  }
  return false
}

/**
 * Generic assignment: an identifier ending in a secret-ish word, a separator, a value.
 * `DB_PASSWORD=...`, `DB_PASS=...`, `AUTH=...`, `"creds": "..."`, `"client_secret": "..."`,
 * `api_key: ...`, `passwd := ...`, and prose `the admin password is ...`. `pass`, `creds` and
 * `auth` count only as a whole word or after `_`/a digit (`DB_PASS`, `REDIS_AUTH`), not inside
 * `bypass`, `compass` or `oauth`. The identifier must END in the word, so `password_file`,
 * `token_url`, `secretName` and `max_tokens` are not assignments of a secret; nor is a word
 * right after `:` or `/` (`arn:aws:secretsmanager:...:secret:relay/prod`, `kv/secret/x`).
 * The value must pass `looksLikeSecretValue`.
 */
const ASSIGNMENT =
  /(?<![:/])(?:password|passwd|pwd|passphrase|(?<![a-z])pass|secret|secret[_-]?key[_-]?base|api[_ -]?key|apikey|token|access[_ -]?key|secret[_ -]key|private[_ -]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|credentials?|(?<![a-z])creds|(?<![a-z])auth)["'\]]?[ \t]{0,3}(?:=>|:=|=|:|[ \t]is|[ \t]was)[ \t]{0,3}["'`]?([^\s"'`,;&]{1,200})/gi
export const genericAssignment = pattern(ASSIGNMENT, looksLikeSecretValue)

/**
 * A password typed on a command line: shorter and plainer than the tokens the generic rule
 * wants (`-pS3cr3t9`), so the test is its own. At least 6 characters, not a stand-in or a
 * variable (`$MYSQL_PWD`, `<password>`), not a number (a port), and either two character
 * classes or a long high-entropy run. A single lower-case word (`-p mydb`) is not one.
 */
export const looksLikeCommandPassword = (raw: string): boolean => {
  const value = raw.replace(/^["'`]+|["'`]+$/g, "")
  if (value.length < 6) return false
  if (looksLikePlaceholder(value)) return false
  if (/^\d+$/.test(value)) return false
  if (/^-/.test(value)) return false // the next option
  if (/^[a-z]+(?:[-_.][a-z0-9]+)*$/.test(value)) return false // a database or host name
  if (characterClasses(value) >= 2) return shannonEntropy(value) >= 2.3
  return value.length >= 12 && shannonEntropy(value) >= 3
}

/** The value of a JSON `"key"` or a URL `?key=`: a bare word is too common for anything weaker. */
const looksLikeKeyValue = (raw: string): boolean => {
  const value = raw.replace(/^["'`]+|["'`]+$/g, "")
  return value.length >= 16 && !/[:\s]/.test(value) && looksLikeSecretValue(value) &&
    characterClasses(value) >= 3 && shannonEntropy(value) >= 3.5
}

/** The user:password pair of `curl -u` / `curl --user`, the password judged as a command-line one. */
export const curlUser = (text: string): boolean => {
  const re = /\bcurl\b[^\n|;&]{0,300}?(?<=\s)(?:-u[ \t]*|--user[ \t]+|--user=)["']?([^\s"':]{1,64}):([^\s"']{1,128})/g
  for (const m of text.matchAll(re)) {
    const user = m[1] ?? ""
    const password = m[2] ?? ""
    if (password !== user && looksLikeCommandPassword(password)) return true
  }
  return false
}

/**
 * Passwords on command lines. MySQL's `-p` takes its value glued on (`-pS3cr3t`): `-p mydb` is
 * "prompt, then use mydb" and `-P 3306` is the port, so only the glued form counts. `sshpass -p`
 * and `redis-cli -a` take the next word. `--password X` (space) is judged like `--password=X`,
 * which the assignment rule already sees; `--password-stdin` and `--password-file` are not it.
 */
const COMMAND_PASSWORDS: ReadonlyArray<RegExp> = [
  /\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump|mariadb-admin)\b[^\n|;&]{0,300}?(?<=\s)-p(["']?[^\s"'-][^\s"']{0,127})/g,
  /\bsshpass\b[^\n|;&]{0,100}?(?<=\s)-p[ \t]*(["']?[^\s"']{1,128})/g,
  /\bredis-cli\b[^\n|;&]{0,300}?(?<=\s)-a[ \t]+(["']?[^\s"']{1,128})/g,
  /(?<![\w-])--(?:password|passwd|passphrase|pass|pwd|secret|client-secret|token|auth-token|access-token|api-key|apikey)[ \t]+(["']?[^\s"']{1,200})/g
]
export const commandLinePassword = (text: string): boolean =>
  curlUser(text) || COMMAND_PASSWORDS.some((re) => pattern(re, looksLikeCommandPassword)(text))

/** `"key": "..."` in JSON (or a YAML flow map) and `?key=` / `&api_key=` in a URL query. */
export const keyField = pattern(
  /["'](?:key|secret[_-]?key|private[_-]?key)["'][ \t]{0,3}:[ \t]{0,3}["']([^"'\s]{1,300})["']/gi,
  looksLikeKeyValue
)
export const urlKey = pattern(
  /[?&;](?:key|apikey|api[_-]key|access[_-]key|sig|signature)=([^&\s#"'<>]{1,300})/gi,
  looksLikeKeyValue
)

/** `Bearer <token>` with a random-looking token. */
export const bearerToken = pattern(
  /\bBearer\s+([A-Za-z0-9._~+/-]{20,2000}=*)/g,
  (value) => looksLikeSecretValue(value) && shannonEntropy(value) >= 3.5
)

/** Telegram bot token; the part after the colon must not be a CamelCase word run. */
export const telegramBotToken = pattern(
  token("\\d{8,10}:A[A-Za-z0-9_-]{34}", "g"),
  (value) => /[0-9_-]/.test(value.slice(value.indexOf(":") + 1))
)
