import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * Issue 41, point 5: budgets cut from the bottom. On a 220-fact memory written in the last day by
 * three assistants in five threads, with decisions, a retraction and open conflicts, a briefing cut
 * by max_tokens keeps every decision, retraction and conflict and cuts new facts; the reader's place
 * moves only past the facts it served; the start-session prompt fits 1,500 o200k tokens.
 */
let relay: RelayClient
const writers = ["cursor", "claude-desktop", "zed"] as const
const topics = ["database", "auth", "deploys", "billing", "search"] as const

const save = async (args: Record<string, unknown>) => {
  const r = await relay.call("relay_save_fact", { session_id: "s1", ...args })
  expect(r.isError, r.content[0]?.text).toBeFalsy()
  return outputOf(r).fact as { id: string }
}

beforeAll(async () => {
  relay = await connectRelay({ env: { RELAY_RATE_LIMIT: "100000", RELAY_STRUCTURED_CONTENT: "full" } })
  const roots = []
  for (const t of topics) {
    roots.push(await save({ content: `The ${t} thread: what we run and why`, written_by: "zed" }))
  }
  let n = 0
  while (n < 205) {
    const t = n % topics.length
    await save({
      content: `${topics[t]} note ${n}: measured step ${n} of the rollout on the staging cluster, kept for the record`,
      written_by: writers[n % writers.length],
      parent_fact_id: roots[t]!.id,
      kind: "detail"
    })
    n++
  }
  // Three disagreements (choices about the same thing), one decided, and a retraction.
  const pairs = []
  for (const [i, t] of topics.slice(0, 3).entries()) {
    const a = await save({
      content: `${t} connection pool size 20`,
      written_by: "cursor",
      parent_fact_id: roots[i]!.id,
      kind: "choice"
    })
    const b = await save({
      content: `${t} connection pool size 50`,
      written_by: "zed",
      parent_fact_id: roots[i]!.id,
      kind: "choice"
    })
    pairs.push([a, b] as const)
  }
  const decided = await relay.call("relay_resolve_conflict", {
    winner_fact_id: pairs[0]![1].id,
    loser_fact_id: pairs[0]![0].id,
    reason: "load test at 50 held",
    resolved_by: "zed"
  })
  expect(decided.isError).toBeFalsy()
  const wrong = await save({
    content: "Search reindexes nightly at 02:00",
    written_by: "cursor",
    parent_fact_id: roots[4]!.id
  })
  expect(
    (await relay.call("relay_retract_fact", { fact_id: wrong.id, reason: "never set up", retracted_by: "cursor" }))
      .isError
  ).toBeFalsy()
}, 120_000)

afterAll(async () => {
  await relay?.close()
})

describe("a budgeted briefing", () => {
  it("keeps decisions, retractions and conflicts, cuts new facts, and moves the reader's place only past what it served", async () => {
    const first = outputOf(
      await relay.call("relay_get_briefing", { my_name: "reader", max_tokens: 1500 })
    ) as unknown as {
      decisions: Array<unknown>
      retractions: Array<unknown>
      open_conflicts: Array<unknown>
      new_facts: Array<{ id: string; created_at: string }>
      next_cursor: string | null
    }
    expect(
      [first.decisions.length, first.retractions.length, first.open_conflicts.length],
      JSON.stringify(first.open_conflicts).slice(0, 3000)
    ).toEqual([1, 1, 2])
    expect(first.new_facts.length).toBeGreaterThan(0)
    expect(first.new_facts.length).toBeLessThan(100)
    expect(first.next_cursor).not.toBeNull()
    // The next automatic briefing starts after the last fact served, not at as_of.
    const second = outputOf(
      await relay.call("relay_get_briefing", { my_name: "reader", max_tokens: 1500 })
    ) as unknown as {
      since: string
      new_facts: Array<{ id: string; created_at: string }>
    }
    expect(second.since).toBe(first.new_facts[first.new_facts.length - 1]!.created_at)
    expect(second.new_facts[0]!.id).not.toBe(first.new_facts[0]!.id)
  })

  it("the start-session prompt of the day fits 1,500 tokens and opens with the decisions and conflicts", async () => {
    const p = await relay.client.getPrompt({ name: "start-session", arguments: { name: "newcomer" } })
    const text = (p.messages[0]!.content as { text: string }).text
    expect(countTokens(text)).toBeLessThanOrEqual(1500)
    expect(text.indexOf("Decisions by others")).toBeGreaterThan(0)
    expect(text.indexOf("Decisions by others")).toBeLessThan(text.indexOf("New facts by others"))
    expect(text).toContain("Retracted by others")
    expect(text).toContain("Open conflicts with new facts (2")
  })
})
