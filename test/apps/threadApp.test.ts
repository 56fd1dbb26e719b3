import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { build } from "esbuild"
import { mkdirSync } from "node:fs"
import type { Browser, Frame, Page } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchChromium } from "../browser/browserKit.js"
import { testGraphName } from "../support/testLayer.js"
import { connectHost, dropGraph, hostile, seedThread } from "./appHost.js"

/**
 * The thread app in Chromium, framed by a minimal host page built on the ext-apps package's host
 * side (test/apps/hostPage.ts): the host's MCP client (the official SDK to Relay's
 * dist/server.js, in the default compact form, saying it draws apps) calls relay_get_context or
 * relay_detect_conflicts as a model would, reads ui://relay/thread, and hands both to the app,
 * which reads what it draws through relay_view_thread. Screenshots go to test-artifacts/apps/.
 */
const artifacts = "test-artifacts/apps"
const uri = "ui://relay/thread"
let graph: string
let seed: Client
let host: Client
let browser: Browser
let page: Page
let ids: Awaited<ReturnType<typeof seedThread>>
let app: { html: string; csp: unknown }
const errors: Array<string> = []
const appCalls: Array<string> = []

type Listed = { name: string; _meta?: { ui?: { visibility?: Array<string> } } }

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true })
  graph = testGraphName("apps_browser")
  const hostScript = build({
    entryPoints: ["test/apps/hostPage.ts"],
    bundle: true,
    format: "iife",
    target: "es2020",
    write: false,
    logLevel: "error"
  })
  ;[seed, host, browser] = await Promise.all([
    connectHost(graph, { apps: true, env: { RELAY_STRUCTURED_CONTENT: "full" } }),
    connectHost(graph, { apps: true }),
    launchChromium()
  ])
  ids = await seedThread(seed)
  const listed = (await host.listTools()).tools as Array<Listed>
  const read = await host.readResource({ uri })
  const content = read.contents[0] as { text: string; _meta?: { ui?: { csp?: unknown } } }
  app = { html: content.text, csp: content._meta?.ui?.csp }

  page = await browser.newPage()
  page.on("console", (m) => {
    if (m.type() === "error" || /Content Security Policy/i.test(m.text())) errors.push(m.text())
  })
  page.on("pageerror", (e) => errors.push(String(e)))
  // The host's side of tools/call from a View: only a tool whose visibility has "app" (SEP-1865).
  await page.exposeFunction("relayCall", async (params: { name: string; arguments?: Record<string, unknown> }) => {
    appCalls.push(params.name)
    const visibility = listed.find((t) => t.name === params.name)?._meta?.ui?.visibility ?? ["model", "app"]
    if (!visibility.includes("app")) throw new Error(`${params.name} is not for apps`)
    return host.callTool(params)
  })
  const script = (await hostScript).outputFiles[0]!.text.replace(/<\/(script)/gi, "<\\/$1")
  await page.setContent(`<!DOCTYPE html><html><body><script>${script}</script></body></html>`)
})

afterAll(async () => {
  await browser?.close()
  await Promise.all([seed?.close(), host?.close()])
  if (graph !== undefined) await dropGraph(graph)
})

/** Calls `tool` as a model would, shows the app for it in a new frame, and waits until the app has drawn. */
const showFor = async (id: string, tool: string, args: Record<string, unknown>): Promise<Frame> => {
  const result = await host.callTool({ name: tool, arguments: args })
  // Text stays the answer for hosts without apps.
  expect((result.content as Array<{ text: string }>)[0]?.text.length).toBeGreaterThan(0)
  await page.evaluate((shown) => window.showApp(shown as never), { id, ...app, args, result })
  const frame = await (await page.waitForSelector(`iframe#${id}`))!.contentFrame()
  await frame.waitForSelector("body[data-state=drawn]", { timeout: 20_000 })
  return frame
}

/** The host sizes the frame as the app asks (ui/notifications/size-changed): taller than an iframe's 150 px. */
const sizedByApp = (id: string) =>
  page.waitForFunction((i) => (document.getElementById(i)?.getBoundingClientRect().height ?? 0) > 400, {
    timeout: 10_000
  }, id)

const drawing = (frame: Frame) =>
  frame.evaluate(() => ({
    nodes: Object.fromEntries(
      [...document.querySelectorAll("g.node")].map((g) => [
        g.getAttribute("data-id"),
        [g.getAttribute("data-status"), g.getAttribute("data-fork")]
      ])
    ),
    decisions: [...document.querySelectorAll("path.supersedes")].map((p) => [
      p.getAttribute("data-winner"),
      p.getAttribute("data-loser")
    ]),
    labels: [...document.querySelectorAll("text.decision-label")].map((t) => t.textContent),
    panel: document.querySelector("#fact-text")?.textContent ?? null,
    status: document.querySelector("#fact-status")?.textContent ?? null,
    why: document.querySelector("#why")?.textContent ?? "",
    images: document.querySelectorAll("img").length,
    pwned: (window as { __pwned?: unknown }).__pwned ?? null
  }))

describe("the thread app in a host's chat (Chromium)", () => {
  it("draws relay_get_context's thread: a fork settled by a decision, a stale fact, an open fork, and the fact in its panel", async () => {
    const frame = await showFor("context", "relay_get_context", { fact_id: ids.c.slice(0, 8) })
    const seen = await drawing(frame)
    expect(seen.nodes).toEqual({
      [ids.root]: ["active", "settled"],
      [ids.a]: ["active", "open"],
      [ids.b]: ["superseded", null],
      [ids.c]: ["stale", null],
      [ids.d]: ["active", null],
      [ids.e]: ["active", null]
    })
    expect(seen.decisions).toEqual([[ids.a, ids.b]])
    expect(seen.labels).toEqual(["decided: one database less to run"])
    expect(seen.panel).toBe("Run RabbitMQ as a three-node cluster with quorum queues")
    expect(seen.status).toBe("stale")
    expect(seen.why).toContain("stale: something it builds on was superseded or retracted")
    // The app read through the host, and only its own tool.
    expect(appCalls).toEqual(["relay_view_thread"])
    await sizedByApp("context")

    await frame.click(`g.node[data-id="${ids.b}"]`)
    const lost = await drawing(frame)
    expect(lost.status).toBe("superseded")
    expect(lost.why).toContain("decided by ben: one database less to run")

    // A model's markup is text: shown as written, nothing made of it.
    await frame.click(`g.node[data-id="${ids.e}"]`)
    const marked = await drawing(frame)
    expect(marked.panel).toBe(hostile)
    expect([marked.images, marked.pwned]).toEqual([0, null])
    await (await page.$("iframe#context"))!.screenshot({ path: `${artifacts}/context.png` })
    expect(errors).toEqual([])
  })

  it("draws relay_detect_conflicts' first conflict with its parent open", async () => {
    const frame = await showFor("conflicts", "relay_detect_conflicts", {})
    const seen = await drawing(frame)
    expect(Object.keys(seen.nodes).length).toBe(6)
    expect(seen.nodes[ids.a]).toEqual(["active", "open"])
    expect(seen.panel).toBe("Use Postgres with SKIP LOCKED as the job queue")
    expect(seen.why).toContain("open conflict under this fact")
    await sizedByApp("conflicts")
    await page.mouse.move(0, 0)
    await (await page.$("iframe#conflicts"))!.screenshot({ path: `${artifacts}/conflicts.png` })
    expect(errors).toEqual([])
  })
})
