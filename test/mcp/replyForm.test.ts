import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"

/**
 * RELAY_STRUCTURED_CONTENT=false, for clients that hand the model structuredContent instead of the
 * text (Claude Code): no outputSchema is listed and no result carries structuredContent, and the text
 * alone is enough to go on (short ids that tools take back, error codes).
 */
describe("RELAY_STRUCTURED_CONTENT=false", () => {
  let relay: RelayClient
  beforeAll(async () => {
    relay = await connectRelay({ env: { RELAY_STRUCTURED_CONTENT: "false" } })
  }, 30_000)
  afterAll(() => relay.close())

  const text = (r: object) => (r as { content: Array<{ text: string }> }).content.map((c) => c.text).join("\n")

  it("lists no outputSchema and sends no structuredContent, and the text's short id works as input", async () => {
    const { tools } = await relay.client.listTools()
    expect(tools.length).toBe(18)
    expect(tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name)).toEqual([])
    expect(tools.every((t) => t.inputSchema.type === "object")).toBe(true)

    const saved = await relay.client.callTool({
      name: "relay_save_fact",
      arguments: { content: "Sessions last thirty minutes", written_by: "cursor", session_id: "cursor:form" }
    })
    expect(saved.isError).not.toBe(true)
    expect(saved.structuredContent).toBeUndefined()
    const shortId = /\b([0-9a-f]{8})\b/.exec(text(saved))?.[1]
    expect(shortId).toBeDefined()

    const context = await relay.client.callTool({ name: "relay_get_context", arguments: { fact_id: shortId } })
    expect(context.structuredContent).toBeUndefined()
    expect(text(context)).toContain("\"Sessions last thirty minutes\"")
  })

  it("an error is text with its contract code, and no structuredContent", async () => {
    const r = await relay.client.callTool({ name: "relay_get_context", arguments: { fact_id: "nope" } })
    expect(r.isError).toBe(true)
    expect(r.structuredContent).toBeUndefined()
    expect(text(r)).toMatch(/invalid_input/)
  })
})

describe("RELAY_STRUCTURED_CONTENT left unset: the compact JSON", () => {
  let relay: RelayClient
  beforeAll(async () => {
    relay = await connectRelay({ env: { RELAY_STRUCTURED_CONTENT: undefined } })
  }, 30_000)
  afterAll(() => relay.close())

  const json = (r: object) => (r as { structuredContent: Record<string, unknown> }).structuredContent
  const keysIn = (v: unknown): Set<string> => {
    const keys = new Set<string>()
    const walk = (x: unknown): void => {
      if (Array.isArray(x)) x.forEach(walk)
      else if (typeof x === "object" && x !== null) {
        for (const [k, y] of Object.entries(x)) {
          keys.add(k)
          walk(y)
        }
      }
    }
    walk(v)
    return keys
  }

  it(
    "lists compact outputSchemas, and every reply checks against its tool's (the SDK client validates each)",
    async () => {
      const { tools } = await relay.client.listTools()
      expect(tools.every((t) => t.outputSchema !== undefined)).toBe(true)
      const schemaKeys = keysIn(tools.map((t) => t.outputSchema))
      expect(schemaKeys.has("age")).toBe(true)
      for (const gone of ["created_at", "session_id", "score"]) expect(schemaKeys.has(gone), gone).toBe(false)
      // The reply's own fields stay required; below them nothing is (items leave out nulls and falses).
      const branches = (t: (typeof tools)[number]) =>
        ((t.outputSchema as { anyOf?: Array<Record<string, unknown>> }).anyOf ?? [t.outputSchema]) as Array<
          Record<string, unknown>
        >
      expect(tools.every((t) => branches(t).some((b) => Array.isArray(b.required)))).toBe(true)
      expect(keysIn(tools.flatMap((t) => branches(t).map((b) => b.properties))).has("required")).toBe(false)
      const ajv = new AjvJsonSchemaValidator()
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = await relay.client.callTool({ name, arguments: args })
        const tool = tools.find((t) => t.name === name)!
        const verdict = ajv.getValidator(tool.outputSchema as never)(r.structuredContent)
        expect(verdict.valid, `${name}: ${verdict.errorMessage}`).toBe(true)
        expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy()
        return json(r)
      }
      const empty = await call("relay_get_current_state", {})
      // A reply's own fields all stay, an empty list and a null cursor too.
      expect(empty).toEqual({ facts: [], next_cursor: null })

      const who = { written_by: "cursor", session_id: "compact-1" }
      // A fact is its line, as the text writes it: short id, writer, age, parent, text.
      const line = (f: unknown) => {
        const at = /^([0-9a-f]{8})( \[(\w+)\])? (\S+) (just now|\d+[mhd] ago)( on ([0-9a-f, ]+))?: (.*)$/.exec(
          String(f)
        )
        expect(at, String(f)).not.toBeNull()
        return { id: at![1]!, status: at![3], by: at![4], on: at![7], text: at![8] }
      }
      const root = line((await call("relay_save_fact", { content: "Auth uses refresh tokens", ...who })).fact)
      // No session, no null parent, no active status.
      expect(root).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}$/),
        status: undefined,
        by: "cursor",
        on: undefined,
        text: "Auth uses refresh tokens"
      })
      const a = await call("relay_save_fact", {
        content: "Keep them in cookies",
        parent_fact_id: root.id,
        kind: "choice",
        ...who
      })
      expect(line(a.fact).on).toBe(root.id)
      // One shared word is no fork by itself (issue 41): the writer names what it contradicts, by short id.
      const aId = line(a.fact).id
      const b = await call("relay_save_fact", {
        content: "Keep them in Redis",
        parent_fact_id: root.id,
        kind: "choice",
        contradicts: [aId],
        ...who
      })
      const fork = b.fork as { parent_id: string; siblings: Array<unknown> }
      expect(fork.parent_id).toBe(root.id)
      expect(fork.siblings.map((s) => line(s).id)).toEqual([aId])
      expect(b.duplicate_of).toBeNull()

      // The short ids go back in as they are.
      const bId = line(b.fact).id
      const deep = line(
        (await call("relay_save_fact", {
          content: "Redis keys expire after 30 days",
          parent_fact_id: bId,
          kind: "detail",
          ...who
        })).fact
      )
      const context = await call("relay_get_context", { fact_id: deep.id })
      const chain = (context.chain as Array<unknown>).map(line)
      expect(chain.map((f) => f.id)).toEqual([root.id, bId, deep.id])
      // A chain's items after the first leave out the parent: it is the item before.
      expect(chain.map((f) => f.on)).toEqual([undefined, undefined, undefined])

      const search = await call("relay_search", { query: "refresh tokens" })
      const hit = (search.hits as Array<Record<string, unknown>>)[0]!
      expect(Object.keys(hit)).toEqual(["fact"])

      const resolved = await call("relay_resolve_conflict", {
        winner_fact_id: bId,
        loser_fact_id: aId,
        reason: "instant revocation",
        resolved_by: "cursor"
      })
      expect(line(resolved.loser).status).toBe("superseded")
      const briefing = await call("relay_get_briefing", { my_name: "zed", since: "2020-01-01T00:00:00Z" })
      expect(keysIn(briefing).has("session_id")).toBe(false)
      expect(typeof briefing.as_of).toBe("string")
      for (const name of ["relay_detect_conflicts", "relay_get_important_facts", "relay_get_clusters"]) {
        await call(
          name,
          {}
        )
      }
      await call("relay_get_impact", { fact_id: root.id })
      const task = await call("relay_post_task", {
        title: "Rotate the signing key",
        written_by: "cursor",
        about: [bId]
      })
      // A task is its line too: its short id (task tools take it back) and the facts it is about, short.
      const taskLine = String(task.task)
      expect(taskLine).toMatch(
        new RegExp(`^[0-9a-f]{8} \\[open\\] "Rotate the signing key" by cursor just now; about ${bId}$`)
      )
      // Nothing to claim is said (task: null), not an empty object; a lease's end is the time left.
      const claimed = await call("relay_claim_task", { claimed_by: "zed", task_id: taskLine.slice(0, 8) })
      expect(claimed.heartbeat).toBe(false)
      expect(String(claimed.task)).toMatch(/\[claimed\] .* held by zed, lease ends in \d+m/)
      expect(claimed.lease_expires_at).toMatch(/^in \d+m$/)
      const none = await call("relay_claim_task", { claimed_by: "zed" })
      expect(none).toEqual({ task: null, fencing_token: null, lease_expires_at: null, heartbeat: false })
      const retracted = await call("relay_retract_fact", {
        fact_id: deep.id,
        reason: "moved",
        retracted_by: "cursor"
      })
      expect(retracted.retraction_id).toMatch(/^[0-9a-f]{8}$/)
    },
    30_000
  )
})
