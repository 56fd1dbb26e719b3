import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync } from "node:fs"
import { request } from "node:http"
import puppeteer, { type Browser, type Page } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  compatibleArguments,
  resolveArguments,
  saveArguments,
  storyFacts,
  storyResolution
} from "../../src/demo/story.js"
import { connectRelay, falkordbEnv, type RelayClient } from "../support/mcpClient.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * Relay Studio in a real browser (Debian's chromium, headless, driven by puppeteer-core; one launch
 * for the file) on the demo story, with `npm run studio`'s own process (dist/cli/studio.js) serving
 * it and an MCP client (dist/server.js over stdio) writing to the same graph. Screenshots of each
 * view go to test-artifacts/studio/ (ignored by git).
 */
const artifacts = "test-artifacts/studio"
const chromium = process.env.RELAY_TEST_CHROMIUM ?? "/usr/bin/chromium"

let relay: RelayClient
let studio: ChildProcess
let browser: Browser
let page: Page
let origin: string
let loginUrl: string
const ids = new Map<string, string>()
const xss = ["<img src=x onerror=\"window.__pwned=1\">", "<script>window.__pwned=2</script> & \"quotes\""]
const xssIds: Array<string> = []

const save = async (args: Record<string, unknown>) => {
  const r = await relay.call("relay_save_fact", args)
  expect(r.isError, r.content[0]?.text).toBeFalsy()
  return outputOf(r).fact as { id: string; created_at: string }
}

/** The studio process's first stdout line: the one-time login URL. */
const startStudio = (graph: string) =>
  new Promise<string>((resolve, reject) => {
    studio = spawn(process.execPath, ["dist/cli/studio.js", "--port", "0"], {
      env: falkordbEnv({ RELAY_GRAPH: graph }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    studio.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split("\n")[0]
      if (out.includes("\n") && line !== undefined) resolve(line.trim())
    })
    studio.once("exit", (code) => reject(new Error(`studio exited ${code}`)))
  })

const get = (path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, string | Array<string> | undefined>; body: string }>(
    (resolve, reject) => {
      const req = request(`${origin}${path}`, { headers }, (res) => {
        let body = ""
        res.on("data", (c: Buffer) => (body += c.toString()))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      })
      req.on("error", reject)
      req.end()
    }
  )

const ready = (after = 0) =>
  page.waitForFunction((n: number) => Number(document.body.dataset["refreshes"] ?? "0") > n, { timeout: 10_000 }, after)
const refreshes = () => page.evaluate(() => Number(document.body.dataset["refreshes"] ?? "0"))
/**
 * Clicks a fact's node with the mouse. A live refresh (the SSE `record` event of a save made just
 * before) redraws the thread and can replace the node between puppeteer's lookup and its click
 * (puppeteer then says the node is detached, or not clickable);
 * a person would click the new node, so the test does too.
 */
const clickNode = async (id: string) => {
  const selector = `g.node[data-id="${id}"]`
  for (let attempt = 1;; attempt++) {
    try {
      return await page.click(selector)
    } catch (e) {
      // "detached from document" or "not clickable": the node was replaced mid-click.
      if (attempt >= 5) throw e
      await page.waitForSelector(selector)
    }
  }
}
const shot = (name: string) => page.screenshot({ path: `${artifacts}/${name}.png`, fullPage: true })

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true })
  relay = await connectRelay()
  for (const fact of storyFacts) ids.set(fact.key, (await save(saveArguments(fact, ids))).id)
  expect((await relay.call("relay_resolve_conflict", resolveArguments(ids))).isError).toBeFalsy()
  expect((await relay.call("relay_resolve_conflict", compatibleArguments(ids))).isError).toBeFalsy()
  for (const content of xss) xssIds.push((await save({ content, written_by: "mallory", session_id: "m-1" })).id)
  ;[loginUrl, browser] = await Promise.all([
    startStudio(relay.graph),
    puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox"] })
  ])
  origin = new URL(loginUrl).origin
  page = await browser.newPage()
  await page.setViewport({ width: 1400, height: 900 })
  await page.goto(loginUrl)
  await ready()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  studio?.kill()
  await relay?.close()
})

describe("Relay Studio in a browser", () => {
  it("draws the demo story's fork and its decision", async () => {
    await page.evaluate(
      (id: string) =>
        (window as unknown as { relayStudio: { openFact: (id: string) => Promise<void> } }).relayStudio.openFact(id),
      ids.get("auth")!
    )
    const auth = ids.get("auth")!
    const [winner, loser] = [ids.get(storyResolution.winner)!, ids.get(storyResolution.loser)!]
    // The fork a decision settled is marked as such; none is open.
    expect(await page.$eval(`g.node[data-id="${auth}"]`, (g) => g.getAttribute("data-fork"))).toBe("settled")
    expect(await page.$$("g.node[data-fork=open]")).toHaveLength(0)
    expect(await page.$(`path.supersedes[data-winner="${winner}"][data-loser="${loser}"]`)).not.toBeNull()
    expect(await page.$eval(`g.node[data-id="${loser}"]`, (g) => g.getAttribute("data-status"))).toBe("superseded")
    expect(await page.$eval(`g.node[data-id="${ids.get("rotation")!}"]`, (g) => g.getAttribute("data-status"))).toBe(
      "stale"
    )
    // The timeline lists the decision; no conflict is open.
    expect(await page.$eval("#timeline", (e) => e.textContent)).toContain(storyResolution.reason)
    expect(await page.$eval("#conflicts", (e) => e.textContent)).toContain("none open")
    await shot("thread")
  })

  it("clicking a fact shows its chain, status and why", async () => {
    const csrf = ids.get("csrf")!
    await clickNode(csrf)
    await page.waitForFunction(
      (id: string) => document.querySelector("#chain li:last-child")?.getAttribute("data-id") === id,
      {},
      csrf
    )
    const chain = await page.$$eval("#chain li", (lis) => lis.map((li) => li.getAttribute("data-id")))
    expect(chain).toEqual([ids.get("auth"), ids.get("cookies"), ids.get("csrf")])
    expect(await page.$eval("#fact-status", (e) => e.textContent)).toBe("stale")
    await clickNode(ids.get("cookies")!)
    await page.waitForFunction(() => document.querySelector("#fact-status")?.textContent === "superseded")
    expect(await page.$eval("#why", (e) => e.textContent)).toContain(storyResolution.reason)
    expect(await page.$$eval("#impact li", (lis) => lis.length)).toBe(2)
    await shot("fact-panel")
  })

  it("the time slider before the decision shows the fork open", async () => {
    const timeline = await page.evaluate(() => fetch("/studio/api/timeline").then((r) => r.json())) as {
      entries: Array<{ kind: string; created_at: string }>
    }
    const decided = timeline.entries.find((e) => e.kind === "decision")!.created_at
    const before = new Date(Date.parse(decided) - 1).toISOString()
    await page.evaluate(
      (iso: string) =>
        (window as unknown as { relayStudio: { setAsOf: (iso: string) => Promise<void> } }).relayStudio.setAsOf(iso),
      before
    )
    expect(await page.$$("path.supersedes")).toHaveLength(0)
    expect(await page.$eval(`g.node[data-id="${ids.get("cookies")!}"]`, (g) => g.getAttribute("data-status"))).toBe(
      "active"
    )
    expect(await page.$eval("#conflicts", (e) => e.textContent)).toContain("Store refresh tokens in Redis")
    expect(await page.$eval(`g.node[data-id="${ids.get("auth")!}"]`, (g) => g.getAttribute("data-fork"))).toBe("open")
    expect(await page.$eval("#as-of", (e) => e.getAttribute("title"))).toBe(before)
    await shot("before-decision")
    await page.evaluate(() =>
      (window as unknown as { relayStudio: { setAsOf: (iso: null) => Promise<void> } }).relayStudio.setAsOf(null)
    )
    expect(await page.$$("path.supersedes")).toHaveLength(1)
  })

  it("a save from another MCP client appears live", async () => {
    await page.waitForFunction(() => document.querySelector("#live")?.textContent === "live")
    const fresh = await save({
      content: "Revocation list lives in Redis too",
      written_by: "zed",
      session_id: "zed-1",
      parent_fact_id: ids.get("redis")!
    })
    await page.waitForSelector(`g.node[data-id="${fresh.id}"]`, { timeout: 5000 })
    // A live update reads the conflicts, the open thread and the threads list (a page read since
    // issue 42) again.
    const asked: Array<string> = []
    const onRequest = (r: { url: () => string }) => asked.push(new URL(r.url()).pathname)
    page.on("request", onRequest)
    const next = await save({
      content: "Revocation entries expire with the token",
      written_by: "zed",
      session_id: "zed-1",
      parent_fact_id: fresh.id
    })
    await page.waitForSelector(`g.node[data-id="${next.id}"]`, { timeout: 5000 })
    page.off("request", onRequest)
    expect(asked.filter((p) => p.endsWith("/api/conflicts")).length).toBeGreaterThan(0)
    expect(asked.filter((p) => p.endsWith("/api/threads")).length).toBeGreaterThan(0)
    await shot("live")
  })

  it("a new thread appears in the threads list within a second", async () => {
    await page.waitForFunction(() => document.querySelector("#live")?.textContent === "live")
    const root = await save({ content: "Rate limits move to the gateway", written_by: "zed", session_id: "zed-1" })
    // Bounded: the page must show it within a second of the save's reply (it waited up to 30 s).
    await page.waitForSelector(`#threads li[data-id="${root.id}"]`, { timeout: 1000 })
  })

  it("model-written markup renders as text: no script runs", async () => {
    for (const [i, id] of xssIds.entries()) {
      await page.evaluate(
        (id: string) =>
          (window as unknown as { relayStudio: { openFact: (id: string) => Promise<void> } }).relayStudio.openFact(id),
        id
      )
      expect(await page.$eval("#fact-text", (e) => e.textContent)).toBe(xss[i])
      expect(await page.$eval(`g.node[data-id="${id}"]`, (e) => e.getAttribute("aria-label"))).toContain(xss[i])
      await page.hover(`g.node[data-id="${id}"]`)
      expect(await page.$eval("#tip .tip-text", (e) => e.textContent)).toBe(xss[i])
    }
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()
    expect(await page.$$("#app img, #app script")).toHaveLength(0)
    await shot("xss-as-text")
  })

  it("search finds by word", async () => {
    const n = await refreshes()
    await page.click("#search", { count: 3 })
    await page.type("#search", "migration")
    await page.keyboard.press("Enter")
    await page.waitForSelector("#results li[data-id]")
    const texts = await page.$$eval("#results li", (lis) => lis.map((li) => li.textContent ?? ""))
    expect(texts.length).toBeGreaterThanOrEqual(2)
    for (const t of texts) expect(t.toLowerCase()).toContain("migration")
    expect(await refreshes()).toBeGreaterThanOrEqual(n)
    await shot("search")
  })

  it("the login link is single-use; Host, Origin, CSP and sign-in are enforced", async () => {
    expect((await get(new URL(loginUrl).pathname + new URL(loginUrl).search)).status).toBe(403)
    const home = await get("/studio/")
    expect(home.headers["content-security-policy"]).toContain("script-src 'self'")
    expect((await get("/studio/api/threads")).status).toBe(401)
    expect((await get("/studio/", { host: "evil.example:80" })).status).toBe(403)
    expect((await get("/studio/api/threads", { origin: "http://evil.example" })).status).toBe(403)
  })
})
