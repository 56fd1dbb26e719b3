import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  connectHttp,
  createToken,
  databaseEnv,
  type HttpClient,
  type HttpRelay,
  startHttpRelay,
  uniqueName
} from "../support/httpRelay.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * Team mode: the automatic briefing, the start-session prompt and the briefing resource are the
 * token's own. The name comes from the token; another name is refused, so nobody moves (or reads
 * from) another member's briefing cursor.
 */
const env = databaseEnv(uniqueName("relay_tokens_brief"))
const acme = uniqueName("acme")
const alice = uniqueName("alice")
const bob = uniqueName("bob")

let relay: HttpRelay
const clients: Array<HttpClient> = []
let a: HttpClient
let b: HttpClient
let reader: HttpClient

const rpcError = async (request: Promise<unknown>) => {
  const e = await request.then(() => undefined, (x: { code: number; message: string; data?: { code?: string } }) => x)
  expect(e, "the request should have failed").toBeDefined()
  return { code: e!.code, message: e!.message, data: e!.data }
}

beforeAll(async () => {
  const aliceToken = await createToken(env, alice, acme)
  const started = startHttpRelay(env)
  const [bobToken, readerToken] = await Promise.all([
    createToken(env, bob, acme),
    createToken(env, uniqueName("ro"), acme, true)
  ])
  relay = await started
  a = await connectHttp(relay.url, aliceToken)
  b = await connectHttp(relay.url, bobToken)
  reader = await connectHttp(relay.url, readerToken)
  clients.push(a, b, reader)
}, 180_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
  await relay?.stop()
})

const saveAs = async (c: HttpClient, content: string) => {
  const r = await c.call("relay_save_fact", { content, session_id: "s1" })
  expect(r.isError, r.content[0]?.text).toBeFalsy()
}

describe("briefings in team mode", () => {
  it("relay_get_briefing without since or my_name continues from the token's own cursor", async () => {
    await saveAs(b, "bob: the API is versioned in the path")
    const first = await a.call("relay_get_briefing", {})
    expect(first.isError, first.content[0]?.text).toBeFalsy()
    expect(outputOf(first).new_facts.map((f) => f.content)).toEqual([
      "bob: the API is versioned in the path"
    ])
    await saveAs(b, "bob: v2 drops XML")
    await saveAs(a, "alice: own fact")
    const second = await a.call("relay_get_briefing", {})
    expect(outputOf(second).since).toBe(outputOf(first).as_of)
    expect(outputOf(second).new_facts.map((f) => f.content)).toEqual(["bob: v2 drops XML"])
    // Bob's cursor is his own: his first briefing covers the 7 days and shows alice's fact.
    const bobs = await b.call("relay_get_briefing", {})
    expect(outputOf(bobs).new_facts.map((f) => f.content)).toEqual(["alice: own fact"])
  })

  it("start-session takes the token's name; another name is forbidden", async () => {
    const { prompts } = await a.client.listPrompts()
    expect(prompts[0]!.arguments).toEqual([expect.objectContaining({ name: "name", required: false })])
    await saveAs(b, "bob: deploys on Tuesdays")
    const p = await a.client.getPrompt({ name: "start-session" })
    const text = (p.messages[0]!.content as { text: string }).text
    expect(text).toContain(JSON.stringify("bob: deploys on Tuesdays"))
    expect(text).not.toContain("v2 drops XML")
    const same = await a.client.getPrompt({ name: "start-session", arguments: { name: alice } })
    expect((same.messages[0]!.content as { text: string }).text).toContain("Nothing new from others.")
    const other = await rpcError(a.client.getPrompt({ name: "start-session", arguments: { name: bob } }))
    expect(other).toMatchObject({ code: -32602, data: { code: "forbidden" } })
    expect(other.message).toContain("forbidden: name: over HTTP it is your token's name")
  })

  it("resources/list holds the token's own briefing; another name's is forbidden; a read-only token may brief", async () => {
    const { resources } = await a.client.listResources()
    expect(resources.map((r) => r.uri)).toEqual([`relay://briefing/${alice}`])
    await saveAs(b, "bob: the cache is Redis")
    const read = await a.client.readResource({ uri: resources[0]!.uri })
    expect((read.contents[0] as { text: string }).text).toContain(JSON.stringify("bob: the cache is Redis"))
    await saveAs(a, "alice: the cache TTL is 5 minutes")
    const foreign = await rpcError(a.client.readResource({ uri: `relay://briefing/${bob}` }))
    expect(foreign).toMatchObject({ code: -32602, data: { code: "forbidden" } })
    expect(foreign.message).not.toContain("TTL")
    // Bob's cursor did not move: his next briefing still has what alice's refused read would have taken.
    const bobs = await b.call("relay_get_briefing", {})
    expect(bobs.isError).toBeFalsy()
    expect(outputOf(bobs).new_facts.map((f) => f.content)).toEqual(["alice: the cache TTL is 5 minutes"])
    // A read-only token reads its own briefing (its cursor is its own bookkeeping, not memory).
    const ro = await reader.call("relay_get_briefing", {})
    expect(ro.isError, ro.content[0]?.text).toBeFalsy()
    expect(outputOf(ro).new_facts.length).toBeGreaterThan(0)
  })
})

describe("short ids in team mode", () => {
  // A workspace's graph has no warm-up: its first statement comes from a call, whose context every
  // later call once took after its own first statement (see test/tools/callContext.test.ts).
  it("a save naming its parent by short id, from another member of the workspace, gets an id of its own", async () => {
    const first = await a.call("relay_save_fact", { content: "Deploys go through the merge queue", session_id: "s2" })
    expect(first.isError, first.content[0]?.text).toBeFalsy()
    const root = outputOf(first).fact.id
    const child = await b.call("relay_save_fact", {
      content: "The queue runs the slow tests",
      session_id: "s2",
      parent_fact_id: root.slice(0, 8),
      kind: "detail"
    })
    expect(child.isError, child.content[0]?.text).toBeFalsy()
    const saved = outputOf(child).fact
    expect(saved.parent_id).toBe(root)
    expect(saved.id).not.toBe(root)
  })
})
