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
import type { ProcedureView } from "../../src/studio/studioProcedure.js"
import { connectRelay, falkordbEnv, type RelayClient } from "../support/mcpClient.js"
import { withRawDatabase } from "../support/rawDatabase.js"
import { outputOf } from "../support/toolOutputs.js"

/**
 * Relay Studio in a real browser (Debian's chromium, headless, driven by puppeteer-core; one launch
 * for the file) on the demo story, with `npm run studio`'s own process (dist/cli/studio.js) serving
 * it and an MCP client (Relay in process) writing to the same graph. Screenshots of each
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
/**
 * Waits until the live feed has caught up with the writes made so far: no new refresh across a
 * server poll and the page's debounce. A refresh redraws the fact panel, and with it the pages of
 * runs a click loaded; a person reading the panel does so once it is still.
 */
const settled = async () => {
  for (let last = await refreshes(), i = 0; i < 30; i++) {
    await new Promise((resolve) => setTimeout(resolve, 600))
    const now = await refreshes()
    if (now === last) return
    last = now
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

  it("a procedure found by search shows its lesson first, each version's own runs and its run record", async () => {
    const lesson = "Check deploy history within 30 minutes before restarting cache"
    const v1 = (await relay.call("relay_save_fact", {
      content: "restart the redis cache during a spike",
      steps: ["drain traffic", "restart redis", "warm up"],
      preconditions: ["page the on-call"],
      written_by: "ann",
      session_id: "ann-1"
    }).then(outputOf)).fact as { id: string }
    const failed = outputOf(
      await relay.call("relay_record_run", {
        procedure_id: v1.id,
        outcome: "failure",
        failed_step: 2,
        note: "an unannounced deploy caused the spike",
        lesson,
        ran_by: "bob"
      })
    )
    const v2 = (failed.revision as { fact: { id: string } }).fact.id
    const ran = await relay.call("relay_record_run", {
      procedure_id: v2,
      outcome: "success",
      note: "checked the deploys first",
      ran_by: "carol"
    })
    expect(ran.isError, ran.content[0]?.text).toBeFalsy()

    // The live feed's refresh of these writes redraws the fact panel: search once it is still.
    await settled()
    await page.click("#search", { count: 3 })
    await page.type("#search", "restart redis spike")
    await page.keyboard.press("Enter")
    await page.waitForSelector(`#results li[data-id="${v2}"]`)
    await page.click(`#results li[data-id="${v2}"]`)
    await page.waitForSelector("#procedure[data-version=\"2\"]")
    const texts = (selector: string) => page.$$eval(selector, (lis) => lis.map((li) => li.textContent ?? ""))
    expect(await texts("#procedure-checks li")).toEqual([`lesson of v1 ${lesson}`, "page the on-call"])
    expect(await page.$$("#procedure-checks li.lesson")).toHaveLength(1)
    expect(await texts("#procedure-steps li")).toEqual(["drain traffic", "restart redis", "warm up"])
    expect(await texts("#procedure-versions li")).toEqual([
      `v1 ${v1.id.slice(0, 8)}: 0 of 1 runs succeeded (rate 0.333)`,
      "v2 (this one): 1 of 1 runs succeeded (rate 0.667)"
    ])
    const runs = await texts("#procedure-runs li")
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatch(/^success by carol just now: checked the deploys first$/)
    expect(await page.$eval("#procedure-more-runs", (b) => b.hasAttribute("hidden"))).toBe(true)
    await shot("procedure-v2")

    // v1, one click away, keeps its own failed run and says what revised it.
    await page.click(`#procedure-versions li[data-id="${v1.id}"]`)
    await page.waitForSelector("#procedure[data-version=\"1\"]")
    expect(await page.$eval("#fact-status", (e) => e.textContent)).toBe("superseded")
    expect(await texts("#procedure-runs li")).toEqual([
      "failure at step 2 by bob just now: an unannounced deploy caused the spike"
    ])
    expect(await texts("#procedure-versions li")).toEqual([
      "v1 (this one): 0 of 1 runs succeeded (rate 0.333)",
      `v2 ${v2.slice(0, 8)}: revises this one`
    ])
    await shot("procedure-v1")
  })

  it("a procedure of 12 versions and 45 runs answers bounded pages that say what is left", async () => {
    let id = (await save({
      content: "reindex the search cluster",
      steps: ["pause writes", "reindex", "resume writes"],
      written_by: "ann",
      session_id: "ann-1"
    })).id
    for (let v = 2; v <= 12; v++) {
      const r = outputOf(
        await relay.call("relay_record_run", {
          procedure_id: id,
          outcome: "failure",
          lesson: `lesson number ${v - 1}`,
          ran_by: "bob"
        })
      )
      id = (r.revision as { fact: { id: string } }).fact.id
    }
    // Made as Relay writes them (places 1..n, counts on the node); bounded.slow.test.ts reads 100,000.
    await withRawDatabase((db) =>
      db.selectGraph(relay.graph).query(
        `MATCH (p:Fact {id: $id}) SET p.runs_ok = 34, p.runs_failed = 11 WITH p UNWIND range(1, 45) AS n ` +
          `CREATE (:Run {id: $id + ':' + toString(n), slot: $id + '#' + toString(n), procedure_id: $id, n: n, ` +
          `outcome: CASE WHEN n % 4 = 0 THEN 'failure' ELSE 'success' END, failed_step: null, note: null, ` +
          `ran_by: 'bot', created_at: 1780000000000 + n, task_id: null})-[:RAN {created_at: 1780000000000 + n}]->(p)`,
        { params: { id } }
      )
    )
    const read = (query: string) =>
      page.evaluate((q: string) => fetch(`/studio/api/procedure?${q}`).then((r) => r.json()), query) as Promise<
        ProcedureView
      >
    const first = await read(`id=${id}`)
    expect(first.procedure.version).toBe(12)
    expect(first.procedure.earlier.map((e) => e.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
    expect(first.earlier_more).toBe(1)
    expect(first.procedure.runs).toEqual({ success: 34, failure: 11, rate: 0.745 })
    expect(first.runs.map((r) => r.id)).toEqual(Array.from({ length: 20 }, (_, k) => `${id}:${45 - k}`))
    expect(first.runs_more).toBe(25)
    const second = await read(`id=${id}&cursor=${encodeURIComponent(first.next_cursor!)}`)
    expect([second.runs[0]?.id, second.runs.length, second.runs_more]).toEqual([`${id}:25`, 20, 5])
    expect((await read(`id=${id}&cursor=not-a-cursor`) as unknown as { error: { code: string } }).error.code).toBe(
      "invalid_input"
    )
    // The page shows the same: the left-out versions and runs, a click for each next page.
    await settled()
    await page.evaluate(
      (id: string) =>
        (window as unknown as { relayStudio: { openFact: (id: string) => Promise<void> } }).relayStudio.openFact(id),
      id
    )
    await page.waitForSelector("#procedure[data-version=\"12\"]")
    expect(await page.$eval("#procedure-versions li", (li) => li.textContent)).toBe(
      "1 earlier version: open v2 for them"
    )
    expect(await page.$$("#procedure-checks li")).toHaveLength(11)
    expect(await page.$eval("#procedure-checks li.lesson", (li) => li.textContent)).toBe(
      "lesson of v11 lesson number 11"
    )
    expect(await page.$eval("#procedure-more-runs", (b) => b.textContent)).toBe("25 more runs")
    for (const [shown, left] of [[40, "5 more runs"], [45, null]] as const) {
      await page.click("#procedure-more-runs")
      await page.waitForFunction((n: number) => document.querySelectorAll("#procedure-runs li").length === n, {}, shown)
      const button = await page.$eval("#procedure-more-runs", (b) => (b.hasAttribute("hidden") ? null : b.textContent))
      expect(button).toBe(left)
    }
    await shot("procedure-paged")
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
