/**
 * Secret scanner: a pure, ordered table of named rules.
 *
 * `findSecretKind` runs before any write on `content` and `reason`. It answers only the
 * human-readable kind of the first rule that matches; it never returns, logs or keeps the
 * matched text, so the caller can put the kind into an error message safely.
 *
 * Shapes follow the public gitleaks rule set where a provider has a fixed prefix, and fall
 * back to a few context rules (AWS secret key, bearer / basic auth, generic assignments,
 * credentials in URLs) that need a "does this value look like a real secret" check.
 *
 * Invisible characters: one zero-width space, soft hyphen or word joiner inside a token hides it
 * from every regex here, and the text still pastes and works as the secret. So `findSecretKind`
 * scans folded copies of the text (`scanCopy`), never the text as given. The copies are only
 * scanned; what is stored is the original.
 *
 * Performance: inputs are at most 2000 characters. Every regex here is a flat sequence of
 * bounded or single character-class quantifiers (no nested quantifiers, no alternation
 * inside a repeated group), so matching stays linear in the input length.
 */

export interface SecretRule {
  /** Human-readable name; the only thing the scanner ever reports. */
  readonly kind: string
  /** True when `text` contains a secret of this kind. */
  readonly test: (text: string) => boolean
}

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
const characterClasses = (value: string): number =>
  (/[a-z]/.test(value) ? 1 : 0) +
  (/[A-Z]/.test(value) ? 1 : 0) +
  (/[0-9]/.test(value) ? 1 : 0) +
  (/[^A-Za-z0-9]/.test(value) ? 1 : 0)

/** Machine-made tokens mix upper, lower and digits; words, kebab-case names and hex do not. */
const mixedAlphanumeric = (value: string): boolean =>
  /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value)

/** Literal values people write instead of a secret. Compared case-insensitively, whole value. */
const PLACEHOLDER_WORDS = new Set([
  "password", "passwd", "pass", "pwd", "secret", "token", "key", "apikey", "api_key",
  "changeme", "change_me", "change-me", "changeit", "redacted", "removed", "hidden",
  "masked", "none", "null", "nil", "undefined", "empty", "todo", "tbd", "test", "example",
  "sample", "dummy", "fake", "placeholder", "default", "admin", "root", "user", "username",
  "guest", "foo", "bar", "baz", "xxx", "letmein", "hunter2"
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
  if (/^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+$/.test(value)) return false // config.apiKey
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)) return false // DB_PASSWORD (env name)
  if (/^[a-z]+(?:[-_.][a-z0-9]+)*$/.test(value)) return false // db-credentials, vault.kv
  if (/^[a-z]+(?:[A-Z][a-z]+)+$/.test(value) || /^(?:[A-Z][a-z]+)+$/.test(value)) return false // camelCase words
  if (characterClasses(value) < 2) return false
  return shannonEntropy(value) >= 2.5
}

/** A regex rule, optionally with a validator run on each match (first capture group if any). */
const pattern =
  (regex: RegExp, validate?: (match: string) => boolean) =>
  (text: string): boolean => {
    // Fresh RegExp objects so no `lastIndex` state leaks between calls.
    const flags = regex.flags.replace("g", "")
    if (validate === undefined) return new RegExp(regex.source, flags).test(text)
    for (const m of text.matchAll(new RegExp(regex.source, flags + "g"))) {
      if (validate(m[1] ?? m[0])) return true
    }
    return false
  }

/** `\b`-like guard for token ends: the token is not followed by more token characters. */
const END = "(?![A-Za-z0-9_-])"
const START = "(?<![A-Za-z0-9_-])"

const token = (body: string, flags = ""): RegExp => new RegExp(START + body + END, flags)

// ---------------------------------------------------------------------------
// Context rules
// ---------------------------------------------------------------------------

/**
 * AWS secret access key: 40 base64-ish characters, only when the text talks about AWS or a
 * secret key. The candidate must mix upper, lower and digits (a git SHA is lower-case hex),
 * be high-entropy and not look like a path (few slashes).
 */
const awsSecretKey = (text: string): boolean => {
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
const urlWithCredentials = (text: string): boolean => {
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
const basicAuth = (text: string): boolean => {
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
const genericAssignment = pattern(ASSIGNMENT, looksLikeSecretValue)

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
const curlUser = (text: string): boolean => {
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
const commandLinePassword = (text: string): boolean =>
  curlUser(text) || COMMAND_PASSWORDS.some((re) => pattern(re, looksLikeCommandPassword)(text))

/** `"key": "..."` in JSON (or a YAML flow map) and `?key=` / `&api_key=` in a URL query. */
const keyField = pattern(/["'](?:key|secret[_-]?key|private[_-]?key)["'][ \t]{0,3}:[ \t]{0,3}["']([^"'\s]{1,300})["']/gi, looksLikeKeyValue)
const urlKey = pattern(/[?&;](?:key|apikey|api[_-]key|access[_-]key|sig|signature)=([^&\s#"'<>]{1,300})/gi, looksLikeKeyValue)

/** `Bearer <token>` with a random-looking token. */
const bearerToken = pattern(
  /\bBearer\s+([A-Za-z0-9._~+/-]{20,2000}=*)/g,
  (value) => looksLikeSecretValue(value) && shannonEntropy(value) >= 3.5
)

/** Telegram bot token; the part after the colon must not be a CamelCase word run. */
const telegramBotToken = pattern(
  token("\\d{8,10}:A[A-Za-z0-9_-]{34}", "g"),
  (value) => /[0-9_-]/.test(value.slice(value.indexOf(":") + 1))
)

// ---------------------------------------------------------------------------
// The table. Order matters: the first match names the kind, so specific prefixes come
// before the broader shapes that would also match them (Anthropic before OpenAI, every
// provider before JWT, AWS secret and the generic rules last).
// ---------------------------------------------------------------------------

export const secretRules: ReadonlyArray<SecretRule> = [
  // Private keys: the header alone is enough (truncated block, squashed newlines).
  // "BEGIN RSA PRIVATE KEY", "BEGIN OPENSSH PRIVATE KEY", "BEGIN PGP PRIVATE KEY BLOCK", ...
  { kind: "private key block", test: pattern(/BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY/) },
  // Lower case only with the dashes: "we begin by generating a private key" is prose.
  { kind: "private key block", test: pattern(/-{3,}[ \t]*begin[ _][a-z0-9 _]{0,40}private[ _]key/i) },
  { kind: "private key block", test: pattern(/PuTTY-User-Key-File-\d/) },
  // Headerless key bodies: base64 of "openssh-key-v1", PKCS#1 RSA (1024 and 2048+ bits),
  // PKCS#8 RSA and EC (P-256, P-384, P-521, secp256k1), SEC1 EC (`MHcCAQEE` is P-256),
  // PKCS#8 Ed25519/X25519 and Ed448/X448. Each is the DER header of a private key, not a
  // public one, and starts a base64 run.
  {
    kind: "private key block",
    test: pattern(/b3BlbnNzaC1rZXktdjE|MII[A-Za-z0-9+/]{1,3}IBAAK(?:C[AB]|BgQ)|MII[A-Za-z0-9+/]{1,3}IBADANBgkqhkiG9w0BAQEFAAS|MI[GH][A-Za-z0-9+/]{1,2}AgEAMB[AM]GByqGSM49AgEG/)
  },
  {
    kind: "private key block",
    test: pattern(/(?<![A-Za-z0-9+/])(?:MHcCAQEE|MHQCAQEE|MIGkAgEBBD|MIHcAgEBBE|MC4CAQAwBQYDK2V[wu]|ME[cY]CAQAwBQYDK2V[xo])/)
  },
  { kind: "age secret key", test: pattern(/AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/) },

  // Cloud providers
  { kind: "AWS access key id", test: pattern(token("(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}")) },
  { kind: "Google API key", test: pattern(token("AIza[A-Za-z0-9_-]{35}")) },
  { kind: "Google OAuth client secret", test: pattern(token("GOCSPX-[A-Za-z0-9_-]{28}")) },
  { kind: "Google OAuth access token", test: pattern(token("ya29\\.[A-Za-z0-9_-]{30,}")) },
  { kind: "Azure storage or service bus key", test: pattern(/(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,100}={0,2}/) },
  { kind: "Azure SAS token", test: pattern(/[?&]sv=\d{4}-\d{2}-\d{2}&[^\s]{0,300}?\bsig=[A-Za-z0-9%+/]{30,}/) },
  { kind: "Azure AD client secret", test: pattern(token("[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}")) },
  { kind: "DigitalOcean token", test: pattern(token("do[opr]_v1_[a-f0-9]{64}")) },
  { kind: "Heroku API key", test: pattern(token("HRKU-AA[A-Za-z0-9_-]{58}")) },
  { kind: "Cloudflare origin CA key", test: pattern(token("v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}")) },
  { kind: "Fly.io token", test: pattern(/(?<![A-Za-z0-9_-])fo1_[A-Za-z0-9_-]{43}|FlyV1 fm[12][ar]?_[A-Za-z0-9+/]{50,}/) },
  { kind: "Databricks token", test: pattern(token("dapi[a-f0-9]{32}(?:-\\d)?")) },
  { kind: "Terraform Cloud token", test: pattern(token("[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,70}")) },
  { kind: "Pulumi token", test: pattern(token("pul-[a-f0-9]{40}")) },
  { kind: "Supabase key", test: pattern(token("(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{31,})")) },

  // Source hosting and package registries
  { kind: "GitHub token", test: pattern(token("gh[pousr]_[A-Za-z0-9]{36,255}")) },
  { kind: "GitHub fine-grained token", test: pattern(token("github_pat_[A-Za-z0-9_]{50,255}")) },
  {
    kind: "GitLab token",
    test: pattern(token("(?:glpat|gldt|glrt|glptt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct)-[A-Za-z0-9_.-]{20,}|GR1348941[A-Za-z0-9_-]{20}"))
  },
  { kind: "npm token", test: pattern(token("npm_[A-Za-z0-9]{36}")) },
  { kind: "PyPI token", test: pattern(token("pypi-AgE[A-Za-z0-9_-]{50,}")) },
  { kind: "Docker Hub token", test: pattern(token("dckr_pat_[A-Za-z0-9_-]{27}")) },
  { kind: "Atlassian API token", test: pattern(token("ATATT3[A-Za-z0-9_=-]{100,}")) },

  // AI providers (Anthropic before OpenAI: both start with "sk-")
  { kind: "Anthropic API key", test: pattern(token("sk-ant-[a-z0-9]{3,10}-[A-Za-z0-9_-]{32,}")) },
  { kind: "OpenAI API key", test: pattern(token("sk-(?:proj-|svcacct-|admin-)?([A-Za-z0-9_-]{20,})", "g"), mixedAlphanumeric) },
  { kind: "Hugging Face token", test: pattern(token("(?:hf_|api_org_)[A-Za-z]{34}")) },
  { kind: "Replicate token", test: pattern(token("r8_[A-Za-z0-9]{37}")) },
  { kind: "Groq API key", test: pattern(token("gsk_[A-Za-z0-9]{52}")) },

  // Messaging and collaboration
  { kind: "Slack token", test: pattern(token("(?:xox[abposre]|xoxe\\.xox[bp])-[0-9A-Za-z-]{10,}")) },
  { kind: "Slack app token", test: pattern(token("xapp-\\d-[A-Za-z0-9-]{20,}")) },
  { kind: "Slack webhook", test: pattern(/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/) },
  { kind: "Discord webhook", test: pattern(/discord(?:app)?\.com\/api\/webhooks\/\d{5,30}\/[A-Za-z0-9_-]{40,}/) },
  { kind: "Discord bot token", test: pattern(token("[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}")) },
  { kind: "Telegram bot token", test: telegramBotToken },
  { kind: "Microsoft Teams webhook", test: pattern(/webhook\.office\.com\/webhookb2\/[A-Za-z0-9@-]{30,}\/IncomingWebhook\/[A-Za-z0-9]{20,}/) },
  { kind: "Linear API key", test: pattern(token("lin_api_[A-Za-z0-9]{40}")) },
  { kind: "Notion token", test: pattern(token("(?:ntn_\\d{11}[A-Za-z0-9]{35}|secret_([A-Za-z0-9]{43}))", "g"), (v) => mixedAlphanumeric(v)) },
  { kind: "Postman API key", test: pattern(token("PMAK-[a-f0-9]{24}-[a-f0-9]{34}")) },
  { kind: "Twitter bearer token", test: pattern(/(?<![A-Za-z0-9%])A{21}([A-Za-z0-9%]{30,})/, mixedAlphanumeric) },

  // Payments and e-mail
  { kind: "Stripe secret key", test: pattern(token("(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}")) },
  { kind: "Stripe webhook secret", test: pattern(token("whsec_[A-Za-z0-9]{32,}")) },
  { kind: "Square token", test: pattern(token("(?:sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43}|EAAA[A-Za-z0-9_-]{60})")) },
  { kind: "Shopify token", test: pattern(token("shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}")) },
  { kind: "PayPal Braintree token", test: pattern(/access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}/) },
  { kind: "Twilio API key", test: pattern(token("SK[0-9a-fA-F]{32}")) },
  { kind: "SendGrid API key", test: pattern(token("SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}")) },
  { kind: "Mailgun API key", test: pattern(token("key-[0-9a-f]{32}")) },
  { kind: "Mailchimp API key", test: pattern(token("[0-9a-f]{32}-us\\d{1,2}")) },

  // Secrets managers and observability
  { kind: "HashiCorp Vault token", test: pattern(token("(?:hvs|hvb|hvr)\\.[A-Za-z0-9_-]{24,}")) },
  { kind: "Doppler token", test: pattern(token("dp\\.(?:pt|st|sa|ct|scim|audit)\\.(?:[a-z0-9_-]{1,40}\\.)?[A-Za-z0-9]{40,44}")) },
  { kind: "1Password service account token", test: pattern(token("ops_eyJ[A-Za-z0-9+/=_-]{100,}")) },
  { kind: "Grafana token", test: pattern(token("(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})")) },
  { kind: "New Relic key", test: pattern(token("NR(?:AK|II|JS)-[A-Za-z0-9]{27}")) },
  { kind: "Sentry token", test: pattern(token("(?:sntrys_eyJ[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64})")) },

  // Structured tokens (after every provider that embeds one, e.g. sntrys_eyJ..., ops_eyJ...)
  { kind: "JWT", test: pattern(token("eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{0,1000}")) },

  // Context rules
  { kind: "AWS secret access key", test: awsSecretKey },
  { kind: "URL with embedded credentials", test: urlWithCredentials },
  { kind: "HTTP basic auth credentials", test: basicAuth },
  { kind: "bearer token", test: bearerToken },
  { kind: "command-line password", test: commandLinePassword },
  { kind: "API key in a URL query", test: urlKey },
  { kind: "password or secret assignment", test: keyField },
  { kind: "password or secret assignment", test: genericAssignment }
]

/**
 * The kind of the first rule that matches `text`, or undefined. Only the kind is returned:
 * never the matched text, so it can go into an error message or a log line.
 */
export const findSecretKind = (text: string): string | undefined => {
  const kindIn = (copy: string) => secretRules.find((rule) => rule.test(copy))?.kind
  // Plain ASCII is its own copy: nothing invisible, no odd spaces, nothing for NFKC to fold.
  if (/^[\x20-\x7e\t\n\r\v\f]*$/.test(text)) return kindIn(text)
  const removed = kindIn(scanCopy(text))
  if (removed !== undefined || !new RegExp(invisibleCharacters.source, "u").test(text)) return removed
  return kindIn(scanCopy(text, " "))
}

/**
 * Characters that show nothing (or nothing a reader can tell apart) and change no meaning a
 * secret depends on: every format character (Cf: ZWSP, ZWJ, ZWNJ, word joiner, soft hyphen,
 * BOM, LRM/RLM and bidi controls, U+061C, U+180E, invisible operators U+2061-2064, tag
 * characters U+E0000-E007F, ...), every default-ignorable code point (variation selectors,
 * the combining grapheme joiner, Hangul fillers, U+115F/U+1160/U+3164/U+FFA0), and control
 * characters other than tab and the line breaks.
 */
export const invisibleCharacters =
  /[\p{Cf}\p{Default_Ignorable_Code_Point}\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]/gu

/**
 * What the scanner reads instead of the text: invisible characters removed (so `gh\u200bp_...` is
 * `ghp_...` again) or, in the second copy, made a space (so `AKIA...\u200bmore` still ends the
 * token where a reader sees it end); the other line breaks (NEL, U+2028/9) made `\n` and every
 * other space (NBSP, en/em/thin spaces, U+3000, ...) a plain one, since rules match a literal space
 * or `[ \t]`; then NFKC, which folds fullwidth and mathematical letters and digits to ASCII. Both
 * copies are clean, so the value heuristics (placeholder, user equals password) judge what a
 * reader sees rather than a value salted with invisible characters. Plain ASCII text is its own copy.
 */
export const scanCopy = (text: string, invisibleAs = ""): string =>
  text
    .replace(invisibleCharacters, invisibleAs)
    .replace(/[\u0085\u2028\u2029]/g, "\n")
    .replace(/[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g, " ")
    .normalize("NFKC")
