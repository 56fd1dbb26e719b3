import { describe, expect, it } from "@effect/vitest"
import { findSecretKind } from "../../src/domain/secretRules.js"
import { connectRelay } from "../support/mcpClient.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

/** Fake credentials of the contract's kinds, each inside an ordinary sentence, with the secret part. */
const secrets: ReadonlyArray<readonly [sentence: string, secret: string]> = [
  ["The uploader runs as AKIA2X7QJ4LZ5MNB3WVY in the eu-west-1 account.", "AKIA2X7QJ4LZ5MNB3WVY"],
  ["CI pushes tags with ghp_R4nd0mT0k3nV4lu3Xq9Lk2Zp7Tn1Vb5Mc8Hd3 today.", "ghp_R4nd0mT0k3nV4lu3Xq9Lk2Zp7Tn1Vb5Mc8Hd3"],
  ["Point the worker at postgres://relay_app:Zx8kQ2mL5vR9tW4p@db.prod.internal:5432/relay please.", "Zx8kQ2mL5vR9tW4p"],
  ["In staging we set password=Zx8!kQ2#mL5vR9 for the admin user.", "Zx8!kQ2#mL5vR9"],
  [
    "The jump host key is -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA (truncated).",
    "b3BlbnNzaC1rZXktdjEAAAAA"
  ],
  [
    "The agent calls Claude with sk-ant-api03-Xq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4Wj6Rb-AbCdEfGhAA now.",
    "Xq9Lk2Zp7Tn1Vb5Mc8Hd3Fg5Sy0Ea2Ui8Ko4Wj6Rb"
  ]
]

/** Every piece of a secret long enough to identify it. */
const fragments = (secret: string) => [secret, secret.slice(0, 10), secret.slice(-10)]

describe("secret guard through the MCP client", () => {
  it("refuses a secret in content or reason with secret_detected, names the kind, writes and logs nothing of it", async () => {
    const relay = await connectRelay({ process: true })
    try {
      const count = async () =>
        outputOf(await relay.call("relay_get_current_state", { limit: 100 })).facts.length as number
      const root = await relay.call("relay_save_fact", {
        content: "Sessions live in Redis",
        written_by: "a",
        session_id: "s"
      })
      const x = await relay.call("relay_save_fact", {
        content: "Use cookies",
        written_by: "a",
        session_id: "s",
        parent_fact_id: outputOf(root).fact.id
      })
      const y = await relay.call("relay_save_fact", {
        content: "Use local storage",
        written_by: "b",
        session_id: "s",
        parent_fact_id: outputOf(root).fact.id
      })
      expect(outputOf(await relay.call("relay_detect_conflicts")).conflicts).toHaveLength(1)
      const before = await count()

      const replies: Array<unknown> = []
      for (const [sentence, secret] of secrets) {
        const kind = findSecretKind(sentence)
        expect(kind, sentence).toBeDefined()
        const asContent = await relay.call("relay_save_fact", {
          content: `  ${sentence}  `,
          written_by: "a",
          session_id: "s",
          parent_fact_id: outputOf(root).fact.id
        })
        const asReason = await relay.call("relay_resolve_conflict", {
          winner_fact_id: outputOf(x).fact.id,
          loser_fact_id: outputOf(y).fact.id,
          reason: `We chose cookies. ${sentence}`,
          resolved_by: "a"
        })
        for (const [field, r] of [["content", asContent], ["reason", asReason]] as const) {
          expect(r.isError).toBe(true)
          expect(errorOf(r).code).toBe("secret_detected")
          expect(errorOf(r).message.startsWith(`${field} looks like it contains a credential (${kind})`))
            .toBe(true)
          expect(r.content[0]?.text).toBe(`secret_detected: ${errorOf(r).message}`)
          replies.push(r)
        }
        for (const piece of fragments(secret)) expect(JSON.stringify(replies)).not.toContain(piece)
      }

      // Nothing was written: no fact, and the conflict is still open (no SUPERSEDES edge).
      expect(await count()).toBe(before)
      const conflicts = outputOf(await relay.call("relay_detect_conflicts")).conflicts
      expect(conflicts).toHaveLength(1)
      const briefing = await relay.call("relay_get_briefing", { my_name: "nobody", since: "1970-01-01T00:00:00Z" })
      expect(outputOf(briefing).decisions).toEqual([])

      // The log says a secret was refused, and never shows it.
      const log = relay.stderr()
      expect(log).toContain("secret_detected")
      for (const [, secret] of secrets) for (const piece of fragments(secret)) expect(log).not.toContain(piece)
    } finally {
      await relay.close()
    }
  })
})
