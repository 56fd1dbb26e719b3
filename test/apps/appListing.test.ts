import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { testGraphName } from "../support/testLayer.js"
import { connectHost, dropGraph, seedThread } from "./appHost.js"

/**
 * MCP Apps on the wire (SEP-1865), with the official SDK client: a host that says it
 * draws apps reads relay_get_context and relay_detect_conflicts linked to ui://relay/thread, the
 * app-only relay_view_thread, and the app's HTML with its CSP; a host that does not reads the
 * listing of before, text only.
 */
let graph: string | undefined
let ids: Awaited<ReturnType<typeof seedThread>>
let apps: Client
let text: Client

beforeAll(async () => {
  graph = testGraphName("apps_wire")
  ;[apps, text] = await Promise.all([
    connectHost(graph, { apps: true, env: { RELAY_STRUCTURED_CONTENT: "full" } }),
    connectHost(graph, { apps: false })
  ])
  ids = await seedThread(apps)
})
afterAll(async () => {
  await Promise.all([apps?.close(), text?.close()])
  if (graph !== undefined) await dropGraph(graph)
})

const uri = "ui://relay/thread"
type Listed = { name: string; _meta?: { ui?: { resourceUri?: string; visibility?: Array<string> } } }

describe("MCP Apps: the thread app", () => {
  it("links the two tools to the app, lists the app's own tool for the app only, and hides all of it from text hosts", async () => {
    expect(apps.getServerCapabilities()?.extensions).toEqual({
      "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] }
    })
    const listed = (await apps.listTools()).tools as Array<Listed>
    const byName = new Map(listed.map((t) => [t.name, t]))
    for (const name of ["relay_get_context", "relay_detect_conflicts"]) {
      expect(byName.get(name)?._meta?.ui?.resourceUri, name).toBe(uri)
      expect(byName.get(name)?._meta?.ui?.visibility, name).toBeUndefined()
    }
    expect(byName.get("relay_view_thread")?._meta?.ui).toEqual({ resourceUri: uri, visibility: ["app"] })
    expect(listed.filter((t) => t._meta !== undefined).map((t) => t.name).sort()).toEqual([
      "relay_detect_conflicts",
      "relay_get_context",
      "relay_view_thread"
    ])

    const plain = (await text.listTools()).tools as Array<Listed>
    expect(plain.map((t) => t.name)).not.toContain("relay_view_thread")
    expect(plain.filter((t) => t._meta !== undefined)).toEqual([])
    expect(plain.length).toBe(listed.length - 1)
    expect((await text.listResources()).resources.map((r) => r.uri)).not.toContain(uri)
  })

  it("serves the app as one HTML document with its CSP: no network, its own script and style by hash", async () => {
    const listedResource = (await apps.listResources()).resources.find((r) => r.uri === uri)
    expect(listedResource?.mimeType).toBe("text/html;profile=mcp-app")
    const read = await apps.readResource({ uri })
    const content = read.contents[0] as { uri: string; mimeType: string; text: string; _meta?: Record<string, unknown> }
    expect(content.uri).toBe(uri)
    expect(content.mimeType).toBe("text/html;profile=mcp-app")
    expect(content._meta).toEqual({
      ui: {
        csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
        prefersBorder: true
      }
    })
    const html = content.text
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true)
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? ""
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("connect-src 'none'")
    // Exactly one script and one style, each allowed by its hash: nothing else runs.
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!)
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!)
    expect([scripts.length, styles.length, (html.match(/<script/g) ?? []).length]).toEqual([1, 1, 1])
    const sha = (s: string) => `'sha256-${createHash("sha256").update(s, "utf8").digest("base64")}'`
    expect(csp).toContain(`script-src ${sha(scripts[0]!)}`)
    expect(csp).toContain(`style-src ${sha(styles[0]!)}`)
    // No address but SVG's namespace, which names and fetches nothing.
    expect(html.replaceAll("http://www.w3.org/2000/svg", "").match(/https?:\/\/\S{0,40}/g)).toBeNull()
    // The same document to a text host that asks for it by name (nothing hides it; it is just not listed).
    expect(((await text.readResource({ uri })).contents[0] as { text: string }).text).toBe(html)
  })

  it("relay_view_thread answers the whole thread in full form: parents, statuses, decisions and open forks, a page at a time", async () => {
    const r = await apps.callTool({ name: "relay_view_thread", arguments: { fact_id: ids.c.slice(0, 8) } })
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy()
    const out = r.structuredContent as {
      root_id: string
      facts: Array<{ id: string; parent_id: string | null; status: string; created_at: string }>
      decisions: Array<{ winner_id: string; loser_id: string; reason: string }>
      open_forks: Array<string>
      next_cursor: string | null
      read_at: string
    }
    expect(out.root_id).toBe(ids.root)
    const status = Object.fromEntries(out.facts.map((f) => [f.id, f.status]))
    expect(status).toEqual({
      [ids.root]: "active",
      [ids.a]: "active",
      [ids.b]: "superseded",
      [ids.c]: "stale",
      [ids.d]: "active",
      [ids.e]: "active"
    })
    expect(out.facts.find((f) => f.id === ids.c)?.parent_id).toBe(ids.b)
    expect(out.decisions.map((d) => [d.winner_id, d.loser_id, d.reason])).toEqual([
      [ids.a, ids.b, "one database less to run"]
    ])
    expect(out.open_forks).toEqual([ids.a])
    expect(out.next_cursor).toBeNull()
    expect(Number.isNaN(Date.parse(out.read_at))).toBe(false)

    // Two at a time: three pages, each fact once, forks and decisions only where the page's facts are.
    const seen: Array<string> = []
    let cursor: string | null = null
    for (let i = 0; i < 3; i++) {
      const page = (await apps.callTool({
        name: "relay_view_thread",
        arguments: { fact_id: ids.root, limit: 2, ...(cursor === null ? {} : { cursor }) }
      })) as { structuredContent?: unknown }
      const p = page.structuredContent as typeof out
      seen.push(...p.facts.map((f) => f.id))
      for (const id of p.open_forks) expect(p.facts.map((f) => f.id)).toContain(id)
      cursor = p.next_cursor
    }
    expect(seen).toEqual(out.facts.map((f) => f.id))
    expect(cursor).toBeNull()
  })
})
