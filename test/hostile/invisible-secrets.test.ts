import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { type Admin, connectAdmin } from "../support/proof.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

/**
 * Issue 9, item 8: one invisible character inside a secret hid it from the scanner, and content
 * made only of invisible characters was stored. Each case here was stored before the fix.
 * [what, the text sent, the secret as a reader sees it]
 */
const hidden: ReadonlyArray<readonly [string, string, string]> = [
  [
    "zero-width space in a GitHub token",
    "CI pushes tags with ghp_R4nd0mT0k3nV4l\u200bu3Xq9Lk2Zp7Tn1Vb5Mc8Hd3 today.",
    "ghp_R4nd0mT0k3nV4lu3Xq9Lk2Zp7Tn1Vb5Mc8Hd3"
  ],
  [
    "soft hyphen in a PEM header",
    "Paste -----BEGIN RSA PRIV\u00adATE KEY----- and then the body from the vault.",
    "-----BEGIN RSA PRIVATE KEY-----"
  ],
  [
    "word joiner in a JWT",
    "The cookie was eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi\u2060JhZG1pbiIsImV4cCI6MTl9.Xq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4Wj6Rb then.",
    "Xq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4Wj6Rb"
  ],
  [
    "zero-width space in password=",
    "In staging we set pass\u200bword=Zx8!kQ2#mL5vR9 for the admin user.",
    "Zx8!kQ2#mL5vR9"
  ],
  ["tag character in mysql -p", "Run mysql -u app -pK7v!q2\u{e0041}Zr9xW relay_prod to check.", "K7v!q2Zr9xW"],
  ["BOM in an AWS key id", "The uploader runs as AKIA2X7QJ\ufeff4LZ5MNB3WVY in eu-west-1.", "AKIA2X7QJ4LZ5MNB3WVY"],
  [
    "fullwidth prefix on an npm token",
    "Publish with \uff4e\uff50\uff4d\uff3fXq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4 now.",
    "Xq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4"
  ]
]

/** The secret and pieces of it long enough to identify it. */
const fragments = (secret: string) => [secret, secret.slice(0, 10), secret.slice(-10)]

/** Text a reader sees as nothing at all. */
const blanks: ReadonlyArray<string> = [
  "\u200b",
  "\u200b\u200c\u200d",
  "\u00ad\u00ad",
  "\u2060 \ufeff",
  "\u{e0041}\u{e0042}\u{e007f}",
  "\u0085",
  "\u3164",
  "\u180e\u061c",
  " \u2800 ",
  "\ufe0f\u034f",
  "\u009b\u0080"
]

describe("invisible characters through the MCP client (issue 9)", () => {
  let relay: RelayClient
  let admin: Admin
  let ids: { root: string; x: string; y: string }

  const facts = async () => admin.query<{ content: string }>(relay.graph, "MATCH (f:Fact) RETURN f.content AS content")
  const decisions = async () =>
    (await admin.query<{ n: number }>(relay.graph, "MATCH ()-[r:SUPERSEDES]->() RETURN count(r) AS n"))[0]?.n

  beforeAll(async () => {
    ;[relay, admin] = await Promise.all([connectRelay(), connectAdmin()])
    const save = async (content: string, parent?: string) =>
      outputOf(
        await relay.call("relay_save_fact", {
          content,
          written_by: "a",
          session_id: "s",
          ...(parent === undefined ? {} : { parent_fact_id: parent })
        })
      ).fact.id as string
    const root = await save("Sessions live in Redis")
    ids = { root, x: await save("Use cookies", root), y: await save("Use local storage", root) }
  })

  afterAll(async () => {
    await admin?.command(["GRAPH.DELETE", relay.graph]).catch(() => undefined)
    await Promise.all([relay?.close(), admin?.close()])
  })

  it("refuses a secret with an invisible character in content or reason: secret_detected, nothing stored or logged", async () => {
    const replies: Array<unknown> = []
    for (const [what, sentence, secret] of hidden) {
      const asContent = await relay.call("relay_save_fact", {
        content: sentence,
        written_by: "a",
        session_id: "s",
        parent_fact_id: ids.root
      })
      const asReason = await relay.call("relay_resolve_conflict", {
        winner_fact_id: ids.x,
        loser_fact_id: ids.y,
        reason: `We chose cookies. ${sentence}`,
        resolved_by: "a"
      })
      for (const [field, r] of [["content", asContent], ["reason", asReason]] as const) {
        expect(r.isError, `${what} as ${field}`).toBe(true)
        expect(errorOf(r).code, `${what} as ${field}`).toBe("secret_detected")
        expect(errorOf(r).message).toMatch(
          new RegExp(`^${field} looks like it contains a credential \\(`)
        )
        replies.push(r)
      }
      const text = JSON.stringify(replies)
      for (const piece of [...fragments(secret), sentence]) expect(text).not.toContain(piece)
    }

    // The database holds the three setup facts and no decision.
    const stored = await facts()
    expect(stored.map((f) => f.content).sort()).toEqual(["Sessions live in Redis", "Use cookies", "Use local storage"])
    expect(await decisions()).toBe(0)

    const log = relay.stderr()
    expect(log).toContain("secret_detected")
    for (const [, sentence, secret] of hidden) {
      for (const piece of [...fragments(secret), sentence]) expect(log).not.toContain(piece)
    }
  })

  it("refuses content and reason made only of invisible characters and whitespace: invalid_input naming the field", async () => {
    for (const blank of blanks) {
      const save = await relay.call("relay_save_fact", { content: blank, written_by: "a", session_id: "s" })
      expect(save.isError, JSON.stringify(blank)).toBe(true)
      expect(errorOf(save)).toEqual({
        code: "invalid_input",
        message: "content: must contain visible text, not only whitespace, invisible or format characters"
      })
      const resolve = await relay.call("relay_resolve_conflict", {
        winner_fact_id: ids.x,
        loser_fact_id: ids.y,
        reason: blank,
        resolved_by: "a"
      })
      expect(errorOf(resolve).code, JSON.stringify(blank)).toBe("invalid_input")
      expect(errorOf(resolve).message.startsWith("reason: "), errorOf(resolve).message)
        .toBe(true)
    }
    expect((await facts()).length).toBe(3)
    expect(await decisions()).toBe(0)

    // One visible character among the invisible ones is a fact, stored exactly as sent (trimmed).
    const ok = await relay.call("relay_save_fact", { content: "\u200bx\u200b", written_by: "a", session_id: "s" })
    expect(ok.isError).toBeFalsy()
    expect(outputOf(ok).fact.content).toBe("\u200bx\u200b")
  })

  it("stores clean text with invisible characters exactly as given", async () => {
    const content = "Caf\u00e9\u00a0Relay uses \u{1f468}\u200d\u{1f469}\u200d\u{1f467} and a soft\u00adhyphen"
    const r = await relay.call("relay_save_fact", { content, written_by: "a", session_id: "clean" })
    expect(r.isError).toBeFalsy()
    const stored = await admin.query<{ content: string }>(
      relay.graph,
      "MATCH (f:Fact {id: $id}) RETURN f.content AS content",
      { id: outputOf(r).fact.id }
    )
    expect(stored).toEqual([{ content }])
  })
})
