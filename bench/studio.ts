/**
 * `npm run bench:studio`: Relay Studio's first view on a memory of `FACTS` facts (default 10,000,
 * the generated shape of `npm run bench`, loaded in bulk), in headless chromium: the time from
 * opening the page to its first view drawn (threads with labels and counts, open conflicts, the
 * timeline, the first thread's graph), cold (the one-time login, then the page) and warm (reloads),
 * and what each studio API request took inside that. The issue's target: under 2 s.
 */
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import puppeteer from "puppeteer-core"
import { bareClient, openDatabase, relayEnv } from "./db.js"
import { generateGraph, loadGraph } from "./graph.js"

const facts = Number(process.env.FACTS ?? 10_000)
const reloads = Number(process.env.RELOADS ?? 5)
const chromium = process.env.RELAY_TEST_CHROMIUM ?? "/usr/bin/chromium"
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const db = await openDatabase()
const graphName = `relay_bench_studio_${randomUUID().slice(0, 8)}`
const client = await bareClient(db)
const studio = spawn(process.execPath, ["dist/cli/studio.js", "--port", "0"], {
  env: relayEnv(db, graphName),
  stdio: ["ignore", "pipe", "inherit"]
})
const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox"] })
try {
  const t0 = performance.now()
  await loadGraph(client, graphName, generateGraph(facts, Date.now()))
  const loaded = performance.now() - t0
  const login = await new Promise<string>((resolve, reject) => {
    let out = ""
    studio.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("\n")) resolve(out.split("\n")[0]!.trim())
    })
    studio.once("exit", (code) => reject(new Error(`studio exited ${code}`)))
  })
  const page = await browser.newPage()
  await page.setViewport({ width: 1400, height: 900 })
  const ready = () => page.waitForFunction(() => document.body.dataset["state"] === "ready", { timeout: 60_000 })
  const requests = () =>
    page.evaluate(() =>
      performance.getEntriesByType("resource")
        .filter((e) => e.name.includes("/api/"))
        .map((e) => [new URL(e.name).pathname.split("/api/")[1]!, Math.round(e.duration)] as const)
    )
  const views: Array<{ view: string; ms: number; api: ReadonlyArray<readonly [string, number]> }> = []
  const measure = async (view: string, open: () => Promise<unknown>) => {
    const start = performance.now()
    await open()
    await ready()
    views.push({ view, ms: Math.round(performance.now() - start), api: await requests() })
  }
  await measure("cold (login link)", () => page.goto(login))
  for (let i = 0; i < reloads; i++) await measure(`reload ${i + 1}`, () => page.reload())
  const drawn = await page.evaluate(() => ({
    threads: document.querySelectorAll("#threads li").length,
    nodes: document.querySelectorAll("g.node").length,
    conflicts: document.querySelectorAll("#conflicts li").length
  }))

  console.log(
    `Relay Studio first view, ${facts.toLocaleString("en")} facts (loaded in bulk in ${(loaded / 1000).toFixed(1)} s)`
  )
  console.log(
    `drawn: ${drawn.threads} threads listed, ${drawn.nodes} fact nodes, ${drawn.conflicts} conflict entries\n`
  )
  console.log("| view | first view drawn (ms) | API requests (ms) |")
  console.log("| --- | --- | --- |")
  for (const v of views) console.log(`| ${v.view} | ${v.ms} | ${v.api.map(([p, ms]) => `${p} ${ms}`).join(", ")} |`)
  const warm = median(views.slice(1).map((v) => v.ms))
  console.log(`\nmedian warm: ${warm} ms; cold: ${views[0]!.ms} ms; target < 2000 ms`)
} finally {
  await browser.close()
  studio.kill()
  await client.selectGraph(graphName).delete().catch(() => undefined)
  await client.close()
  await db.stop()
}
