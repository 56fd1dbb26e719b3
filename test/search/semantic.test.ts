import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { checkedCaller } from "../mcp/protocol.js"
import { connectRelay, type RelayClient } from "../support/mcpClient.js"
import { withRawDatabase } from "../support/rawDatabase.js"

/**
 * Issue 41, point 3: optional semantic recall. A loopback OpenAI-compatible embeddings endpoint
 * whose vectors this test decides: a text's vector is the topic its words name (four topics, four
 * axes), so a question and a fact that share no word can be made near. Relay runs in this process on
 * the real database.
 */
const topics: ReadonlyArray<readonly [RegExp, ReadonlyArray<number>]> = [
  [/vault|renewal|credential/i, [1, 0, 0, 0]],
  [/lockout|attacker|guess/i, [0, 1, 0, 0]],
  [/kafka|streaming|asynchronous/i, [0, 0, 1, 0]],
  // Half way between the first topic and the fourth: cosine 0.6 with the first, below the strong bar.
  [/umbrella/i, [0.6, 0, 0, 0.8]]
]
const vectorOf = (text: string): ReadonlyArray<number> => topics.find(([re]) => re.test(text))?.[1] ?? [0, 0, 0, 1]

interface Endpoint {
  readonly url: string
  /** Every text the endpoint was sent. */
  readonly seen: Array<string>
  /** While true it answers 503. */
  down: boolean
  readonly close: () => Promise<void>
}

const startEndpoint = async (): Promise<Endpoint> => {
  const seen: Array<string> = []
  const state = { down: false }
  const server: Server = createServer((req, res) => {
    let body = ""
    req.on("data", (c: Buffer) => {
      body += c.toString()
    })
    req.on("end", () => {
      const input = (JSON.parse(body) as { input: Array<string> }).input
      seen.push(...input)
      if (state.down || req.url !== "/v1/embeddings") {
        res.writeHead(503).end()
        return
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
        object: "list",
        data: input.map((t, index) => ({ object: "embedding", index, embedding: vectorOf(t) }))
      }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  })
}

const vectorIndexes = (graph: string) =>
  withRawDatabase(async (db) => {
    const r = await db.selectGraph(graph).roQuery<{ t: Array<string> | null }>(
      "CALL db.indexes() YIELD label, types WITH label, types WHERE label = 'Fact' RETURN types.embedding AS t"
    )
    return (r.data ?? []).filter((row) => (row.t ?? []).includes("VECTOR")).length
  })

const withVector = (graph: string, id: string) =>
  withRawDatabase(async (db) => {
    const r = await db.selectGraph(graph).roQuery<{ has: boolean }>(
      "MATCH (f:Fact {id: $id}) RETURN f.embedding IS NOT NULL AS has",
      { params: { id } }
    )
    return r.data?.[0]?.has ?? false
  })

interface Hits {
  readonly hits: ReadonlyArray<{ readonly fact: { readonly id: string }; readonly weak?: boolean }>
  readonly note?: string
}

describe("relay_search with RELAY_EMBEDDINGS_URL (loopback endpoint)", () => {
  let endpoint: Endpoint
  let relay: RelayClient
  let mcp: Awaited<ReturnType<typeof checkedCaller>>
  const save = async (content: string) =>
    (await mcp.ok("relay_save_fact", { content, written_by: "cursor", session_id: "s1" })).fact.id
  const search = async (query: string) =>
    (await relay.call("relay_search", { query, limit: 5 })).structuredContent as unknown as Hits

  beforeAll(async () => {
    endpoint = await startEndpoint()
    relay = await connectRelay({
      env: {
        RELAY_EMBEDDINGS_URL: endpoint.url,
        RELAY_EMBEDDINGS_MODEL: "test-model",
        RELAY_EMBEDDINGS_KEY: "not-a-real-key",
        RELAY_EMBEDDINGS_BACKFILL_MS: "100"
      }
    })
    mcp = await checkedCaller(relay)
  }, 30_000)

  afterAll(async () => {
    await relay?.close()
    await endpoint?.close()
  })

  it("finds a fact through its vector when the question shares no word with it, strong", async () => {
    const vault = await save("Refresh tokens are stored in HashiCorp Vault")
    await save("Pods get a preStop sleep of five seconds before shutdown")
    await save("Invoices are exported nightly as a spreadsheet")
    expect(await vectorIndexes(relay.graph)).toBe(1)
    const out = await search("where do we keep the login renewal credentials")
    expect(out.hits[0]?.fact.id).toBe(vault)
    expect(out.hits[0]?.weak).toBeUndefined()
    expect(out.note).toBeUndefined()
  })

  it("marks a hit the vector carries weak below RELAY_EMBEDDINGS_STRONG", async () => {
    const rain = await save("Umbrellas are kept by the office door")
    const out = await search("where do we keep renewal credentials")
    const hit = out.hits.find((h) => h.fact.id === rain)
    expect(hit?.weak).toBe(true)
  })

  it("saves while the endpoint is down, and the backfill adds the vector later", async () => {
    endpoint.down = true
    const lockout = await save("Ten failed logins lock the account for fifteen minutes")
    expect(await withVector(relay.graph, lockout)).toBe(false)
    const before = await search("what stops an attacker from guessing")
    expect(before.hits.map((h) => h.fact.id)).not.toContain(lockout)
    endpoint.down = false
    // The backfill is Relay's own process on the real clock: bounded polling for its write.
    for (let i = 0; i < 100 && !(await withVector(relay.graph, lockout)); i++) {
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(await withVector(relay.graph, lockout)).toBe(true)
    const after = await search("what stops an attacker from guessing")
    expect(after.hits[0]?.fact.id).toBe(lockout)
  })

  it("pages on in the word ranking after a fused first page, skipping no word hit", async () => {
    const words = [
      await save("The ledger service closes books at midnight"),
      await save("Ledger exports go to the finance bucket"),
      await save("Ledger entries are immutable once posted"),
      await save("The ledger keeps seven years of history")
    ]
    const near = [await save("Jobs run through Kafka topics"), await save("Streaming consumers commit offsets hourly")]
    const seen: Array<string> = []
    let cursor: string | null = null
    for (let i = 0; i < 10; i++) {
      const r = await relay.call("relay_search", {
        query: "ledger asynchronous",
        limit: 2,
        ...(cursor === null ? {} : { cursor })
      })
      const out = r.structuredContent as unknown as Hits & { next_cursor: string | null }
      seen.push(...out.hits.map((h) => h.fact.id))
      if (i === 0) expect(out.hits.some((h) => near.includes(h.fact.id))).toBe(true)
      cursor = out.next_cursor
      if (cursor === null) break
    }
    for (const id of words) expect(seen).toContain(id)
  })

  it("never sends a refused secret to the endpoint", async () => {
    const secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    const r = await relay.call("relay_save_fact", {
      content: `the deploy token is ${secret}`,
      written_by: "cursor",
      session_id: "s1"
    })
    expect(r.isError).toBe(true)
    expect(endpoint.seen.some((t) => t.includes(secret))).toBe(false)
  })
})

describe("group commit with RELAY_EMBEDDINGS_URL", () => {
  it("stores each vector of saves that went together (the backfill's first look found nothing to do)", async () => {
    const endpoint = await startEndpoint()
    const relay = await connectRelay({ env: { RELAY_EMBEDDINGS_URL: `${endpoint.url}/v1`, RELAY_RATE_LIMIT: "1000" } })
    try {
      const mcp = await checkedCaller(relay)
      const ids = await Promise.all(Array.from({ length: 8 }, (_, i) =>
        mcp.ok("relay_save_fact", {
          content: `Kafka topic ${i} carries asynchronous jobs`,
          written_by: "cursor",
          session_id: `s${i}`
        }).then((r) => r.fact.id)))
      for (const id of ids) expect(await withVector(relay.graph, id)).toBe(true)
      const out = (await relay.call("relay_search", { query: "which streaming platform", limit: 8 }))
        .structuredContent as unknown as Hits
      expect(new Set(out.hits.map((h) => h.fact.id))).toEqual(new Set(ids))
    } finally {
      await relay.close()
      await endpoint.close()
    }
  })
})

describe("without RELAY_EMBEDDINGS_URL: relay_save_fact's suggested links by words", () => {
  let relay: RelayClient
  let mcp: Awaited<ReturnType<typeof checkedCaller>>
  beforeAll(async () => {
    relay = await connectRelay()
    mcp = await checkedCaller(relay)
  })
  afterAll(async () => {
    await relay?.close()
  })

  it("creates no vector index and stores no vector", async () => {
    const saved = await mcp.ok("relay_save_fact", {
      content: "Refresh tokens are stored in HashiCorp Vault",
      written_by: "cursor",
      session_id: "s1"
    })
    await relay.call("relay_search", { query: "where do we keep the login renewal credentials" })
    expect(await vectorIndexes(relay.graph)).toBe(0)
    expect(await withVector(relay.graph, saved.fact.id)).toBe(false)
  })

  it("names up to 3 facts in other threads that share the fact's rarest terms, not its own thread's", async () => {
    const save = (content: string, parent?: string) =>
      mcp.ok("relay_save_fact", {
        content,
        written_by: "cursor",
        session_id: "s1",
        ...(parent === undefined ? {} : { parent_fact_id: parent, kind: "detail" })
      })
    for (let i = 0; i < 6; i++) await save(`Unrelated note number ${i} about the weekly team lunch`)
    const other = await save("Kafka consumer groups rebalance when a partition leader moves")
    const root = await save("The ingest pipeline reads from queues")
    const sameThread = await save("Consumer groups rebalance when the partition leader moves", root.fact.id)
    expect(sameThread.links?.map((l) => l.fact_id)).toEqual([other.fact.id])
    const again = await save("Partition leader moves make Kafka consumer groups rebalance")
    const named = again.links?.map((l) => l.fact_id) ?? []
    expect(named).toContain(other.fact.id)
    expect(named).toContain(sameThread.fact.id)
    expect(named.length).toBeLessThanOrEqual(3)
    const unrelated = await save("The office plants are watered on Fridays")
    expect(unrelated.links).toBeUndefined()
    const text = (await relay.call("relay_save_fact", {
      content: "Kafka consumer groups rebalance whenever partition leaders move",
      written_by: "cursor",
      session_id: "s1"
    })).content.map((c) => (c as { text: string }).text).join("\n")
    expect(text).toMatch(/Similar in other threads \(builds_on or supersedes one, or leave them\): \S+ "/)
  })

  it("gives links in the compact JSON as its outputSchema says, with short ids", async () => {
    const compact = await connectRelay({ graph: relay.graph, env: { RELAY_STRUCTURED_CONTENT: undefined } })
    try {
      const { tools } = await compact.client.listTools()
      const schema = tools.find((t) => t.name === "relay_save_fact")!.outputSchema
      const r = await compact.client.callTool({
        name: "relay_save_fact",
        arguments: {
          content: "Kafka consumer groups rebalance once partition leaders move",
          written_by: "cursor",
          session_id: "s1"
        }
      })
      const out = r.structuredContent as { links?: Array<{ fact_id: string }> }
      expect(out.links?.length).toBeGreaterThan(0)
      for (const l of out.links ?? []) expect(l.fact_id.length).toBeLessThan(36)
      const verdict = new AjvJsonSchemaValidator().getValidator(schema as never)(r.structuredContent)
      expect(verdict.valid, verdict.errorMessage).toBe(true)
    } finally {
      await compact.close()
    }
  })
})
