import { type ChildProcess, spawn } from "node:child_process"
import puppeteer, { type Browser } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBuildsOn, createFacts, storedFact, storeThreadClustersOn } from "../../bench/bulkLoad.js"
import { generateGraph, loadGraph } from "../../bench/graph.js"
import { falkordbEnv } from "../support/mcpClient.js"
import { withRawDatabase as withDb } from "../support/rawDatabase.js"
import { testGraphName } from "../support/testLayer.js"

/**
 * Relay Studio on a memory of 10,000 facts (`npm run bench`'s generated shape, loaded in bulk, and a
 * thread of 1,000 more): the first view is usable, with the threads largest first, each with its
 * label and size, the open conflicts, and the largest thread drawn a page at a time (never the whole
 * thread at once). The time it took is printed; `npm run bench:studio` measures it (target: < 2 s).
 */
const facts = 10_000
const longThread = 1000
const chromium = process.env.RELAY_TEST_CHROMIUM ?? "/usr/bin/chromium"
const graph = testGraphName("studio_large")
let studio: ChildProcess
let browser: Browser
let login: string

beforeAll(async () => {
  await withDb(async (db) => {
    await loadGraph(db, graph, generateGraph(facts, Date.now()))
    const chain = Array.from(
      { length: longThread },
      (_, i) => storedFact(crypto.randomUUID(), `step ${i} of the long migration`, "cursor", "long", Date.now() + i)
    )
    await createFacts(db.selectGraph(graph), chain)
    await createBuildsOn(db.selectGraph(graph), chain.slice(1).map((f, i) => [f.id, chain[i]!.id] as const))
    await storeThreadClustersOn(db.selectGraph(graph))
  })
  studio = spawn(process.execPath, ["dist/cli/studio.js", "--port", "0"], {
    env: falkordbEnv({ RELAY_GRAPH: graph }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  ;[login, browser] = await Promise.all([
    new Promise<string>((resolve, reject) => {
      let out = ""
      studio.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes("\n")) resolve(out.split("\n")[0]!.trim())
      })
      studio.once("exit", (code) => reject(new Error(`studio exited ${code}`)))
    }),
    puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox"] })
  ])
}, 120_000)

afterAll(async () => {
  await browser?.close()
  studio?.kill()
  await withDb((db) => db.selectGraph(graph).delete().catch(() => undefined))
})

describe("Relay Studio on 10,000 facts", () => {
  it(
    "shows the threads largest first with labels and sizes, the open conflicts, and the first thread a page at a time",
    async () => {
      const page = await browser.newPage()
      await page.setViewport({ width: 1400, height: 900 })
      const start = performance.now()
      await page.goto(login)
      await page.waitForFunction(() => document.body.dataset["state"] === "ready", { timeout: 30_000 })
      console.log(`studio first view on ${facts} facts: ${Math.round(performance.now() - start)} ms`)

      const threads = await page.$$eval(
        "#threads li",
        (lis) => lis.map((li) => ({ label: li.querySelector("q")?.textContent ?? "", text: li.textContent ?? "" }))
      )
      expect(threads.length).toBeGreaterThan(1)
      const sizes = threads.map((t) => Number(/ (\d+) facts?$/.exec(t.text)?.[1]))
      for (const [i, t] of threads.entries()) {
        expect(t.label.length, t.text).toBeGreaterThan(0)
        expect(sizes[i], t.text).toBeGreaterThanOrEqual(1)
        if (i > 0) expect(sizes[i]).toBeLessThanOrEqual(sizes[i - 1]!)
      }
      expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(facts + longThread)
      expect(sizes[0]).toBe(longThread)
      expect(await page.$$eval("#conflicts li", (lis) => lis.length)).toBeGreaterThan(0)
      // The largest thread is drawn a page at a time, with a button for more.
      const drawn = await page.$$eval("g.node", (gs) => gs.length)
      expect(drawn).toBeGreaterThan(0)
      expect(drawn).toBe(200)
      // Fitted on open: all 200 drawn facts of the 1,000-fact chain are inside the graph's box.
      const outside = await page.evaluate(() => {
        const box = document.querySelector("#graph")!.getBoundingClientRect()
        return [...document.querySelectorAll("g.node")].filter((g) => {
          const r = g.getBoundingClientRect()
          return r.left < box.left - 0.5 || r.top < box.top - 0.5 || r.right > box.right + 0.5 ||
            r.bottom > box.bottom + 0.5
        }).length
      })
      expect(outside).toBe(0)
      expect(await page.$eval("#more", (b) => b.hasAttribute("hidden"))).toBe(false)
      await page.close()
    },
    60_000
  )
})
