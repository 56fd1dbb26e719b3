import { describe, expect, it } from "@effect/vitest"
import {
  findSecretKind,
  looksLikeCommandPassword,
  looksLikePlaceholder,
  looksLikeSecretValue,
  scanCopy,
  secretRules
} from "../../src/domain/secretRules.js"
import { engineeringFacts } from "./engineering-corpus.js"
import { credentials, invisibles, ordinary, withInvisibles } from "./secret-corpus.js"

const ruleKinds = new Set(secretRules.map((rule) => rule.kind))

describe("secret scanner corpus", () => {
  it("is large and varied enough to mean something", () => {
    expect(credentials.length).toBeGreaterThanOrEqual(70)
    expect(new Set(credentials.map((c) => c.kind)).size).toBeGreaterThanOrEqual(28)
    expect(ordinary.length).toBeGreaterThanOrEqual(70)
    for (const { kind } of credentials) expect(ruleKinds.has(kind)).toBe(true)
  })

  describe("detects every credential with its kind", () => {
    it.each(credentials.map((c, i) => [i, c.kind, c.text] as const))("#%i %s", (_i, kind, text) => {
      expect(findSecretKind(text)).toBe(kind)
    })
  })

  describe("lets every ordinary fact through", () => {
    it.each(ordinary.map((text, i) => [i, text] as const))("#%i", (_i, text) => {
      expect(findSecretKind(text)).toBeUndefined()
    })
  })
})

/** The rule table alone, on the text as given: what the scanner did before it read a folded copy. */
const rawKind = (text: string) => secretRules.find((rule) => rule.test(text))?.kind

describe("invisible characters inside secrets (issue 9)", () => {
  const hidden = credentials.map((c, i) => ({ kind: c.kind, text: withInvisibles(c.text, i) }))

  it.each(hidden.map((c, i) => [i, c.kind, c.text] as const))(
    "#%i %s with one invisible character in each word",
    (_i, kind, text) => {
      expect(findSecretKind(text)).toBe(kind)
    }
  )

  it("is what the folded copy catches: the rules alone miss most of them", () => {
    const missedRaw = hidden.filter((c) => rawKind(c.text) === undefined).length
    // Printed so the corpus size and the bypass rate before the fold show in the run.
    console.log(`invisible variants: ${hidden.length}, missed by the rules on the raw text: ${missedRaw}`)
    expect(missedRaw).toBeGreaterThan(hidden.length * 0.6)
  })

  it.each(ordinary.map((text, i) => [i, withInvisibles(text, i)] as const))(
    "ordinary #%i stays ordinary with invisible characters",
    (_i, text) => {
      expect(findSecretKind(text)).toBeUndefined()
    }
  )

  it("folds each listed invisible character and combining mark away, odd line breaks too (\\n in the spaced copy), spaces to a plain space", () => {
    for (const c of invisibles) expect(scanCopy(`gh${c}p_`), JSON.stringify(c)).toBe("ghp_")
    expect(scanCopy("a\u0085b\u2028c\u2029d")).toBe("abcd")
    expect(scanCopy("a\u0085b\u2028c\u2029d", " ")).toBe("a\nb\nc\nd")
    expect(scanCopy("gh\u0332p_\u0336x\u2800y")).toBe("ghp_xy")
    expect(scanCopy("a\u00a0b\u2009c\u3000d\u202fe\u1680f")).toBe("a b c d e f")
    expect(scanCopy("tab\tand\nnewline")).toBe("tab\tand\nnewline")
    expect(scanCopy("\uff21\uff2b\uff29\uff21 \u{1d400}")).toBe("AKIA A")
    // every Unicode tag character, not only the ones in the list
    expect(scanCopy("x\u{e0001}\u{e0020}\u{e007f}y")).toBe("xy")
  })
})

describe("engineering text is stored (issue 23)", () => {
  it("keeps every one of 200+ realistic facts that mention secrets without holding one", () => {
    expect(engineeringFacts.length).toBeGreaterThanOrEqual(200)
    const refused = engineeringFacts.filter((text) => findSecretKind(text) !== undefined)
    expect(refused).toEqual([])
  })

  it("still refuses a real value after auth: or token:, and a key pattern holding one", () => {
    expect(findSecretKind("auth: Zx8!kQ2#mL5vR9 for the admin user")).toBeDefined()
    expect(findSecretKind("token:Q2xpZW50S2V5OjlmM2E4Yj")).toBeDefined()
    expect(findSecretKind("auth:fail:{email}:Zx8!kQ2#mL5vR9")).toBeDefined()
  })
})

/** `text` with `mark` in the middle of every word of 4+ characters. */
const markedWords = (text: string, mark: string) =>
  text.replace(/\S{4,}/g, (word) => {
    const chars = Array.from(word)
    const mid = Math.floor(chars.length / 2)
    return [...chars.slice(0, mid), mark, ...chars.slice(mid)].join("")
  })

describe("marks and blanks inside a token (issue 23)", () => {
  const hiders = { "U+0332": "\u0332", "U+0336": "\u0336", "NEL": "\u0085", "U+2800": "\u2800" }
  for (const [name, mark] of Object.entries(hiders)) {
    it(`finds every credential with ${name} inside each word, and no ordinary fact`, () => {
      const missed = credentials.filter((c) => findSecretKind(markedWords(c.text, mark)) !== c.kind)
      expect(missed.map((c) => c.kind)).toEqual([])
      const refused = [...ordinary, ...engineeringFacts].filter((t) => findSecretKind(markedWords(t, mark)))
      expect(refused).toEqual([])
    })
  }
})

describe("command-line passwords keep precision", () => {
  it("judges the glued mysql -p value, not a database name or a port", () => {
    for (const value of ["K7v!q2Zr9x", "'Vt8#kLm2Qz'", "S3cr3tPw"]) {
      expect(looksLikeCommandPassword(value), value).toBe(true)
    }
    for (const value of ["3306", "relay_dev", "mydb", "-h", "$MYSQL_PWD", "\"${DB_PASS}\"", "password", "abc12"]) {
      expect(looksLikeCommandPassword(value), value).toBe(false)
    }
  })
})

describe("contract kinds inside ordinary sentences", () => {
  // One sentence per kind the contract's Guards section names. Values are random fakes.
  const contractCases: ReadonlyArray<readonly [string, string]> = [
    [
      "PEM private key",
      "Paste this into the box: -----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEAx3kQ9 and then restart."
    ],
    [
      "OpenSSH private key",
      "The jump host key is -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA (truncated)."
    ],
    ["PGP private key", "Import -----BEGIN PGP PRIVATE KEY BLOCK----- lQOYBGZ9q7cBCAC into gpg on the release box."],
    ["AWS access key id", "The uploader runs as AKIA2X7QJ4LZ5MNB3WVY in the eu-west-1 account."],
    ["AWS secret key", "Its AWS secret key is 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 and it is shared."],
    ["GitHub classic token", "CI pushes tags with ghp_R4nd0mT0k3nV4lu3Xq9Lk2Zp7Tn1Vb5Mc8Hd3 today."],
    [
      "GitHub fine-grained token",
      "Use 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6wX7 for releases."
    ],
    ["GitLab token", "The mirror job uses glpat-Xq9Lk2Zp7Tn1Vb5Mc8Hd for the sync."],
    ["Slack token", "The alerting bot posts with xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx daily."],
    ["Stripe secret key", "Charges go through sk_live_51HqXq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea in production."],
    ["OpenAI key", "The summariser key is sk-proj-Xq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4Wj6Rb as of Monday."],
    [
      "Anthropic key",
      "The agent calls Claude with sk-ant-api03-Xq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4Wj6Rb-AbCdEfGhAA now."
    ],
    ["Google API key", "The maps widget uses AIzaSyD4x9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui in the frontend."],
    [
      "JWT",
      "The failing request carried eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiIsImV4cCI6MTl9.Xq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4Wj6Rb in its header."
    ],
    ["npm token", "Publishing uses npm_Xq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4 from the secrets store."],
    ["password assignment", "In staging we set password=Zx8!kQ2#mL5vR9 for the admin user."],
    ["secret assignment", "The webhook handler reads secret: 7d9fK2xQ8mLp4Zr1Vt6Wn3 from config."],
    ["api_key assignment", "Remember api_key=Q2xpZW50S2V5OjlmM2E4Yj for the geocoder."],
    [
      "URL with credentials",
      "Point the worker at postgres://relay_app:Zx8kQ2mL5vR9tW4p@db.prod.internal:5432/relay please."
    ]
  ]

  it.each(contractCases)("%s", (_label, text) => {
    expect(findSecretKind(text)).toBeDefined()
  })
})

describe("findSecretKind", () => {
  it("answers only a kind from the rule table, never the matched text", () => {
    for (const { text } of credentials) {
      const kind = findSecretKind(text)
      expect(kind).toBeDefined()
      expect(ruleKinds.has(kind ?? "")).toBe(true)
      // No secret-shaped run from the input (8+ characters with a digit) appears in the answer.
      for (const word of text.split(/\s+/).filter((w) => w.length >= 8 && /[0-9]/.test(w))) {
        expect(kind?.includes(word)).toBe(false)
      }
    }
  })

  it("is stable across repeated calls (no regex state leaks between calls)", () => {
    for (const { text, kind } of credentials.slice(0, 20)) {
      expect(findSecretKind(text)).toBe(kind)
      expect(findSecretKind(text)).toBe(kind)
    }
  })
})

describe("value heuristics", () => {
  it("treats references and stand-ins as placeholders", () => {
    for (
      const value of [
        "<password>",
        "${DB_PASSWORD}",
        "$TOKEN",
        "%API_KEY%",
        "***",
        "changeme",
        "[REDACTED]",
        "process.env.X",
        "YOUR_TOKEN_HERE",
        "xxxxxxxx"
      ]
    ) {
      expect(looksLikePlaceholder(value)).toBe(true)
    }
  })

  it("accepts random values and rejects words, numbers, paths and names", () => {
    for (const value of ["Zx8!kQ2#mL5vR9", "9f86d081884c7d659a2feaa0", "T7r!qP0z-Lm3Wx8e"]) {
      expect(looksLikeSecretValue(value)).toBe(true)
    }
    for (
      const value of [
        "3600",
        "1.2.3",
        "30s",
        "true",
        "/run/secrets/db",
        "relay-db-credentials",
        "config.apiKey",
        "DB_PASSWORD",
        "getToken()",
        "stored"
      ]
    ) {
      expect(looksLikeSecretValue(value)).toBe(false)
    }
  })
})
