import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { FalkorDB } from "falkordb"
import { inject } from "vitest"
import { connectRelay, type RelayClient, type ToolCallResult } from "../support/mcpClient.js"
import { type OutputOf, outputOf } from "../support/toolOutputs.js"
import { deepChain, shapeStatements, wideRoot } from "./chainShapes.js"

/**
 * Issue 9, item 4, for the chain tools: a 3,000-deep chain of 2,000-character facts and a root with
 * 3,000 such children made relay_get_context, relay_get_impact and relay_resolve_conflict's `stale`
 * reply with every fact at once (megabytes; over 10 MiB the SDK client closes the connection).
 * Through the real MCP client: every reply stays under 1 MiB, and reading on through next_cursor
 * returns every fact exactly once. The content is quotes and backslashes, the worst case for the
 * reply's size: each costs 2 bytes in structuredContent and 4 in the text block (JSON in JSON).
 */
const MiB = 1024 * 1024
const long = (i: number) => `${i}:${"\"\\".repeat(1000)}`.slice(0, 2000)

const deep = deepChain(3000, 1000, long)
const wide = wideRoot(3000, long)

let relay: RelayClient
let largest = 0

const replyBytes = (r: ToolCallResult) =>
  Buffer.byteLength(JSON.stringify({ content: r.content, structuredContent: r.structuredContent }))

const call = async <N extends string>(tool: N, args: Record<string, unknown>) => {
  const r = await relay.call(tool, args)
  expect(r.isError, r.content[0]?.text?.slice(0, 200)).toBeFalsy()
  const bytes = replyBytes(r)
  largest = Math.max(largest, bytes)
  expect(bytes).toBeLessThan(MiB)
  return outputOf(r)
}

/** Reads every page of a list tool through next_cursor; returns the ids in the order read and the page count. */
const readAll = async <N extends "relay_get_context" | "relay_get_impact">(
  tool: N,
  args: Record<string, unknown>,
  ids: (page: OutputOf<N>) => Array<string>
) => {
  const pages: Array<Array<string>> = []
  let cursor: string | null = null
  do {
    const page: OutputOf<N> & { readonly next_cursor: string | null } = await call(
      tool,
      cursor === null ? args : { ...args, cursor }
    )
    pages.push(ids(page))
    cursor = page.next_cursor
  } while (cursor !== null)
  return pages
}

describe("replies of the chain tools on long, deep and wide shapes", () => {
  beforeAll(async () => {
    relay = await connectRelay({ env: { RELAY_RATE_LIMIT: "100000" } })
    const { host, password, port } = inject("falkordb")
    const db = await FalkorDB.connect({ socket: { host, port }, password })
    try {
      // The server made the schema (indexes, unique id) when it started; write the shapes into its graph.
      const graph = db.selectGraph(relay.graph)
      for (const s of [...shapeStatements(deep.shape), ...shapeStatements(wide.shape)]) {
        await graph.query(s.cypher, { params: s.params as never })
      }
    } finally {
      await db.close()
    }
  }, 400_000)

  afterAll(async () => {
    console.log(`largest reply: ${(largest / 1024).toFixed(0)} KiB`)
    await relay?.close()
  })

  it("relay_get_context: under 1 MiB a page, the whole chain once from the leaf to the root", async () => {
    const leaf = deep.chain[2999]!.id
    const pages = await readAll(
      "relay_get_context",
      { fact_id: leaf, limit: 500 },
      (p) => p.chain.map((f) => f.id)
    )
    // Each page is root first and ends where the previous one began.
    expect(pages[0]!.at(-1)).toBe(leaf)
    expect(pages.reverse().flat()).toEqual(deep.chain.map((f) => f.id))
    expect(pages.length).toBeGreaterThan(6)
  }, 300_000)

  it("relay_get_impact: under 1 MiB a page, every dependent once, nearest first", async () => {
    const pages = await readAll(
      "relay_get_impact",
      { fact_id: deep.chain[0]!.id, limit: 500 },
      (p) => p.dependents.map((d) => `${d.fact.id} ${d.distance}`)
    )
    expect(pages.flat()).toEqual(deep.chain.slice(1).map((f, i) => `${f.id} ${i + 1}`))
    const children = await readAll(
      "relay_get_impact",
      { fact_id: wide.root.id, limit: 500 },
      (p) => p.dependents.map((d) => d.fact.id)
    )
    expect(children.flat()).toEqual(wide.children.map((c) => c.id))
  }, 300_000)

  it("relay_resolve_conflict: `stale` under 1 MiB, and relay_get_impact reads on from stale_next_cursor", async () => {
    const resolved = await call("relay_resolve_conflict", {
      winner_fact_id: deep.winner.id,
      loser_fact_id: wide.root.id,
      reason: "the wide root loses",
      resolved_by: "hostile",
      limit: 500
    })
    const first = resolved.stale.map((d) => d.fact.id)
    expect(first.length).toBeGreaterThan(0)
    expect(resolved.stale.every((d) => d.fact.status === "stale")).toBe(true)
    expect(resolved.stale_next_cursor).not.toBeNull()
    const rest = await readAll(
      "relay_get_impact",
      { fact_id: wide.root.id, limit: 500 },
      (p) => p.dependents.map((d) => d.fact.id)
    )
    expect(rest.flat()).toEqual(wide.children.map((c) => c.id))
    // The cursor from resolve continues exactly after its last stale fact.
    let cursor: string | null = resolved.stale_next_cursor
    const after: Array<string> = []
    while (cursor !== null) {
      const page = await call("relay_get_impact", { fact_id: wide.root.id, limit: 500, cursor })
      after.push(...page.dependents.map((d) => d.fact.id))
      cursor = page.next_cursor
    }
    expect([...first, ...after]).toEqual(wide.children.map((c) => c.id))
  }, 300_000)
})
