import { ManagedRuntime } from "effect"
import type { ChildProcess } from "node:child_process"
import { mkdirSync } from "node:fs"
import puppeteer, { type Browser, type Page } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { relayStack } from "../../src/layers/assembly/stacks.js"
import { withRawDatabase } from "../support/rawDatabase.js"
import { ok } from "../support/runTool.js"
import { loadStudioMemory, threadSizes } from "../support/studioMemory.js"
import { chromiumPath, startStudio } from "../support/studioProcess.js"
import { testGraphName, testSettings } from "../support/testLayer.js"

/**
 * Relay Studio as a person reads it, in headless Chromium at 1440x900 and 800x900: first on an
 * empty graph (the page says what to do), then on a memory of 220 facts in five threads
 * (test/support/studioMemory.ts) saved while the page was closed. Each thread opens fitted (every
 * node inside the graph's box), no two texts overlap and no text leaves its box, forks are marked
 * exactly where relay_detect_conflicts lists an open conflict (or a decision settled one), and the
 * fact panel and the Mermaid text follow the selection, the thread and the time slider. Zoom and pan
 * by keyboard, mouse, touch and the Fit button. Screenshots go to test-artifacts/studio/ (ignored by
 * git); with RELAY_STUDIO_DOCS_SHOT=1 the fitted 25-fact thread is also written to docs/studio.png.
 */
const artifacts = "test-artifacts/studio"
const graph = testGraphName("studio_layout")
const stack = ManagedRuntime.make(relayStack(testSettings(graph)))
let studio: ChildProcess
let browser: Browser
let page: Page
let origin: string
let ids: Map<string, string>
let forks: Map<string, "open" | "settled">

const shot = (name: string) => page.screenshot({ path: `${artifacts}/layout-${name}.png` })
const ready = (after: number) =>
  page.waitForFunction((n: number) => Number(document.body.dataset["refreshes"] ?? "0") > n, { timeout: 30_000 }, after)
const refreshes = () => page.evaluate(() => Number(document.body.dataset["refreshes"] ?? "0"))
const rootOf = (thread: number) => ids.get(`t${thread}-0`)!

/** Opens a thread the way a person does: from the threads list (a drawer below 1100 px). */
const openThread = async (thread: number) => {
  const root = rootOf(thread)
  if (await page.$eval("#show-lists", (b) => getComputedStyle(b).display !== "none")) await page.click("#show-lists")
  await page.evaluate(() => document.querySelector("svg.thread")?.setAttribute("data-old", ""))
  await page.click(`#threads li[data-id="${root}"]`)
  await page.waitForFunction(
    (id: string, n: number) =>
      document.querySelector(`svg.thread:not([data-old]) g.node[data-id="${id}"]`) !== null &&
      document.querySelectorAll("g.node").length === n,
    { timeout: 20_000 },
    root,
    threadSizes[thread]!
  )
}

/** Where the drawn thread lies, measured in the page: what a person would see wrong. */
const geometry = () =>
  page.evaluate(() => {
    const graphBox = document.querySelector("#graph")!.getBoundingClientRect()
    const content = document.querySelector("svg.thread g.viewport") as SVGGraphicsElement
    const toContent = content.getCTM()!.inverse()
    const inContent = (t: SVGGraphicsElement) => {
      const b = t.getBBox()
      const m = toContent.multiply(t.getCTM()!)
      const p = new DOMPoint(b.x, b.y).matrixTransform(m)
      const q = new DOMPoint(b.x + b.width, b.y + b.height).matrixTransform(m)
      return { x: p.x, y: p.y, w: q.x - p.x, h: q.y - p.y }
    }
    const nodes = [...document.querySelectorAll<SVGGElement>("g.node")]
    const outside = nodes.filter((g) => {
      const r = g.getBoundingClientRect()
      return r.left < graphBox.left - 0.5 || r.top < graphBox.top - 0.5 || r.right > graphBox.right + 0.5 ||
        r.bottom > graphBox.bottom + 0.5
    }).map((g) => g.dataset["id"])
    const overflowing: Array<string> = []
    for (const g of nodes) {
      const box = g.querySelector<SVGRectElement>("rect.box")!.getBBox()
      for (const t of g.querySelectorAll<SVGTextElement>("text")) {
        const b = t.getBBox()
        if (b.x < box.x || b.y < box.y || b.x + b.width > box.x + box.width || b.y + b.height > box.y + box.height) {
          overflowing.push(t.textContent ?? "")
        }
      }
    }
    // The labels: each fact's box (its texts stay inside it, above) and each decision's label.
    const labels = [
      ...nodes.map((g) => ({ text: g.dataset["id"]!, ...inContent(g.querySelector<SVGRectElement>("rect.box")!) })),
      ...[...document.querySelectorAll<SVGTextElement>("text.decision-label")].map((t) => ({
        text: t.textContent ?? "",
        ...inContent(t)
      }))
    ]
    const overlapping: Array<string> = []
    for (const [i, a] of labels.entries()) {
      for (const b of labels.slice(i + 1)) {
        const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)
        const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y)
        if (w > 0.5 && h > 0.5) overlapping.push(`${a.text} / ${b.text}`)
      }
    }
    const htmlOverflow = ["#lists", "#panel", "header", ".toolbar"].filter((s) => {
      const e = document.querySelector(s)
      return e !== null && e.scrollWidth > e.clientWidth + 1
    })
    return {
      nodes: nodes.length,
      outside,
      overflowing,
      overlapping,
      htmlOverflow,
      graphWidth: graphBox.width,
      inWindow: graphBox.left >= 0 && graphBox.right <= window.innerWidth && graphBox.bottom <= window.innerHeight,
      marks: nodes.filter((g) => g.dataset["fork"] !== undefined).map((g) => [g.dataset["id"]!, g.dataset["fork"]!])
    }
  })

const scale = () =>
  page.$eval("svg.thread g.viewport", (g) => Number(/scale\(([\d.e-]+)\)/.exec(g.getAttribute("transform")!)![1]))
const translate = () =>
  page.$eval("svg.thread g.viewport", (g) => /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(g.getAttribute("transform")!)!)
    .then((m) => [Number(m[1]), Number(m[2])])

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true }) // The test's own Relay stack sets the graph up first, so the studio starting next finds it ready
   // (two processes setting up one graph at once could race).
  ;[, browser] = await Promise.all([
    stack.runtime(),
    puppeteer.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox"] })
  ])
  const { login, process: spawned } = await startStudio(graph)
  studio = spawned
  origin = new URL(login).origin
  page = await browser.newPage()
  await page.setViewport({ width: 1440, height: 900 })
  await page.goto(login)
  await ready(0)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  studio?.kill()
  await stack.dispose()
  await withRawDatabase((db) => db.selectGraph(graph).delete().catch(() => undefined))
})

describe("Relay Studio reads well at any size of memory and window", () => {
  it("an empty memory says which graph it reads and how to fill it", async () => {
    const empty = await page.$eval("#empty", (e) => e.textContent ?? "")
    expect(empty).toContain("This memory is empty")
    expect(empty).toContain(`graph ${graph}`)
    expect(empty).toContain("npm run seed")
    await shot("empty")
    // The memory is saved while the page is away (a live page would redraw on each of 220 saves).
    await page.goto("about:blank")
    ;({ ids, forks } = await stack.runPromise(loadStudioMemory()))
    // The memory has both marks to draw: forks a decision settled, and forks still open.
    expect(new Set(forks.values())).toEqual(new Set(["open", "settled"]))
    await page.goto(`${origin}/studio/`)
    await ready(0)
    expect(await page.$$eval("#threads li[data-id]", (lis) => lis.length)).toBe(threadSizes.length)
  }, 60_000)

  for (const [width, height] of [[1440, 900], [800, 900]] as const) {
    it(`at ${width}x${height} every thread opens fitted, its texts inside their boxes and apart`, async () => {
      await page.setViewport({ width, height })
      for (const thread of threadSizes.keys()) {
        await openThread(thread)
        const g = await geometry()
        expect(g.nodes).toBe(threadSizes[thread])
        expect(g.outside, `thread ${thread}: nodes outside the view`).toEqual([])
        expect(g.overflowing, `thread ${thread}: text outside its node`).toEqual([])
        expect(g.overlapping, `thread ${thread}: texts over each other`).toEqual([])
        expect(g.htmlOverflow).toEqual([])
        expect(g.inWindow).toBe(true)
        // Below 1100 px the lists and the panel fold away: the thread has the width.
        if (width < 1100) expect(g.graphWidth).toBeGreaterThanOrEqual(width - 1)
        else expect(g.graphWidth).toBeGreaterThanOrEqual(width - 660)
        // Fork marks: open exactly where relay_detect_conflicts lists one, settled where a decision was.
        const conflicts = await stack.runPromise(
          ok("relay_detect_conflicts", { thread: rootOf(thread), limit: 50 })
        ) as unknown as { conflicts: ReadonlyArray<{ parent: { id: string } }> }
        const expected = [...forks].filter(([key]) => key.startsWith(`t${thread}-`)).map((
          [key, mark]
        ) => [ids.get(key)!, mark])
        expect(new Set(g.marks.filter(([, m]) => m === "open").map(([id]) => id))).toEqual(
          new Set(conflicts.conflicts.map((c) => c.parent.id))
        )
        expect(new Set(g.marks.map(([id, m]) => `${id} ${m}`))).toEqual(
          new Set(expected.map(([id, m]) => `${id} ${m}`))
        )
        if (thread % 2 === 0) await shot(`${width}-thread-${thread}`)
      }
    }, 60_000)
  }

  it("nodes wrap their text and show ages; the whole text and the stamp on hover and focus", async () => {
    await page.setViewport({ width: 1440, height: 900 })
    await openThread(1)
    const node = `g.node[data-id="${rootOf(1)}"]`
    const lines = await page.$$eval(`${node} text.node-text`, (ts) => ts.map((t) => t.textContent ?? ""))
    expect(lines.length).toBeGreaterThan(1)
    expect(lines.length).toBeLessThanOrEqual(3)
    expect(await page.$eval(`${node} text.node-age`, (t) => t.textContent)).toMatch(/^\d+ d ago$/)
    await page.hover(node)
    await page.waitForSelector("#tip:not([hidden])")
    const tip = await page.$eval("#tip", (t) => t.textContent ?? "")
    expect(tip).toContain("Database migrations run in CI before each deploy, one SQL file each with a tested down step")
    expect(tip).toMatch(/saved \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\d+ d ago\)/)
    await page.mouse.move(5, 5)
    // Keyboard: Tab reaches the facts; a focused fact shows its tooltip, Enter selects it.
    await page.focus("#graph")
    await page.keyboard.press("Tab")
    const focused = await page.evaluate(() => document.activeElement?.getAttribute("data-id"))
    expect(focused).toBeTruthy()
    expect(await page.$eval("#tip", (t) => t.hasAttribute("hidden"))).toBe(false)
    await page.keyboard.press("Enter")
    await page.waitForFunction(
      (id: string) =>
        document.querySelector("#fact-text") !== null &&
        document.querySelector(`g.node[data-id="${id}"]`)?.classList.contains("selected"),
      {},
      focused!
    )
    expect(await page.$eval("#fact-saved time", (t) => t.getAttribute("title"))).toMatch(/UTC$/)
  })

  it("zoom and pan by keyboard, mouse and touch; Fit brings every node back", async () => {
    await openThread(0)
    const fitted = await scale()
    await page.focus("#graph")
    await page.keyboard.press("+")
    expect(await scale()).toBeCloseTo(fitted * 1.25, 5)
    const [x0] = await translate()
    await page.keyboard.press("ArrowLeft")
    expect((await translate())[0]).toBeCloseTo(x0! + 80, 5)
    const box = await page.$eval("#graph", (e) => {
      const r = e.getBoundingClientRect()
      return { x: r.x, y: r.y, w: r.width, h: r.height }
    })
    const cx = box.x + box.w / 2
    const cy = box.y + box.h / 2
    await page.mouse.move(cx, cy)
    await page.mouse.wheel({ deltaY: -300 })
    await page.waitForFunction(
      (k: number) => {
        const t = document.querySelector("svg.thread g.viewport")!.getAttribute("transform")!
        return Number(/scale\(([\d.e-]+)\)/.exec(t)![1]) > k
      },
      {},
      fitted * 1.3
    )
    const before = await translate()
    await page.mouse.move(cx + 3, cy + 3)
    await page.mouse.down()
    await page.mouse.move(cx + 100, cy + 60, { steps: 5 })
    await page.mouse.up()
    const after = await translate()
    expect(after[0]! - before[0]!).toBeCloseTo(97, 0)
    expect(after[1]! - before[1]!).toBeCloseTo(57, 0)
    // Touch: one finger pans, two pinch (CDP touch events, as a phone's browser sends them).
    const cdp = await page.createCDPSession()
    const touch = (type: string, points: Array<[number, number]>) =>
      cdp.send("Input.dispatchTouchEvent", {
        type: type as "touchStart",
        touchPoints: points.map(([x, y], id) => ({ x, y, id }))
      })
    const k1 = await scale()
    await touch("touchStart", [[cx - 40, cy], [cx + 40, cy]])
    for (const d of [60, 80, 100]) await touch("touchMove", [[cx - d, cy], [cx + d, cy]])
    await touch("touchEnd", [])
    expect(await scale()).toBeCloseTo(k1 * 100 / 40, 3)
    const t1 = await translate()
    await touch("touchStart", [[cx, cy]])
    for (const d of [10, 30, 50]) await touch("touchMove", [[cx + d, cy + d]])
    await touch("touchEnd", [])
    const t2 = await translate()
    expect(t2[0]! - t1[0]!).toBeCloseTo(50, 0)
    await shot("zoomed")
    await page.click("#fit")
    expect(await scale()).toBeCloseTo(fitted, 5)
    expect((await geometry()).outside).toEqual([])
    expect(await page.evaluate(() => document.querySelector("#graph")!.scrollTop)).toBe(0)
  })

  it("the panel and the Mermaid text follow the selection, the thread and the time slider", async () => {
    // A settled fork of the last thread saved: its loser is superseded now, active before the decision.
    const last = threadSizes.length - 1
    const settled = [...forks].find(([key, mark]) => mark === "settled" && key.startsWith(`t${last}-`))![0]
    await openThread(last)
    const loser = await page.$eval(
      `path.supersedes`,
      (p) => p.getAttribute("data-loser")!
    )
    await page.click(`g.node[data-id="${loser}"]`)
    await page.waitForFunction(() => document.querySelector("#fact-status")?.textContent === "superseded")
    await page.click("#copy-mermaid")
    const mermaid0 = await page.$eval("#mermaid", (e) => e.textContent ?? "")
    expect(mermaid0).toContain(rootOf(last).slice(0, 8))
    expect(mermaid0).toContain("(settled conflict)")
    expect(mermaid0).toContain(`${ids.get(settled)!.slice(0, 8)}`)
    // Before the decision: the loser is active, its node and the panel say so, and the mark is open.
    const decided = await page.evaluate(() => fetch("/studio/api/timeline").then((r) => r.json())) as {
      entries: Array<{ kind: string; created_at: string; fact_id: string }>
    }
    const decision = decided.entries.find((e) => e.kind === "decision" && e.fact_id === loser)!
    const n = await refreshes()
    await page.evaluate(
      (iso: string) =>
        (window as unknown as { relayStudio: { setAsOf: (iso: string) => Promise<void> } }).relayStudio.setAsOf(iso),
      new Date(Date.parse(decision.created_at) - 1).toISOString()
    )
    await ready(n)
    const nodeStatus = await page.$eval(`g.node[data-id="${loser}"]`, (g) => g.getAttribute("data-status"))
    expect(nodeStatus).toBe("active")
    expect(await page.$eval("#fact-status", (e) => e.textContent)).toBe(nodeStatus)
    expect(await page.$eval(`g.node[data-id="${ids.get(settled)!}"]`, (g) => g.getAttribute("data-fork"))).toBe("open")
    expect(await page.$eval("#mermaid", (e) => e.textContent ?? "")).not.toContain("supersedes")
    expect(await page.$eval("#mermaid", (e) => e.textContent ?? "")).toContain("(open conflict)")
    await shot("before-decision")
    // Another thread (saved before): the panel no longer shows the fact, the Mermaid text is the new thread's.
    await openThread(2)
    expect(await page.$("#fact-status")).toBeNull()
    const mermaid2 = await page.$eval("#mermaid", (e) => e.textContent ?? "")
    expect(mermaid2).toContain(rootOf(2).slice(0, 8))
    expect(mermaid2).not.toContain(rootOf(last).slice(0, 8))
    // Every node's status as drawn is the panel's when it is clicked.
    const m = await refreshes()
    await page.evaluate(() =>
      (window as unknown as { relayStudio: { setAsOf: (iso: null) => Promise<void> } }).relayStudio.setAsOf(null)
    )
    await ready(m)
    for (const id of await page.$$eval("g.node", (gs) => gs.slice(0, 4).map((g) => g.getAttribute("data-id")!))) {
      await page.click(`g.node[data-id="${id}"]`)
      const drawn = await page.$eval(`g.node[data-id="${id}"]`, (g) => g.getAttribute("data-status"))
      await page.waitForFunction(
        (s: string) => document.querySelector("#fact-status")?.textContent === s,
        { timeout: 5000 },
        drawn!
      )
    }
    await page.click("#close-mermaid")
  })

  it("at 800 px the lists and the panel are drawers; a clicked fact opens the panel", async () => {
    await page.setViewport({ width: 800, height: 900 })
    await openThread(3)
    expect(await page.$eval("#panel", (e) => getComputedStyle(e).display)).toBe("none")
    const id = ids.get("t3-3")!
    await page.click(`g.node[data-id="${id}"]`)
    await page.waitForFunction(() => document.querySelector("#fact-status") !== null)
    expect(await page.$eval("#panel", (e) => getComputedStyle(e).display)).toBe("block")
    expect(await page.$eval("#fact-status", (e) => e.textContent)).toBe(
      await page.$eval(`g.node[data-id="${id}"]`, (g) => g.getAttribute("data-status"))
    )
    await shot("800-panel")
    await page.click("#close-panel")
    expect(await page.$eval("#panel", (e) => getComputedStyle(e).display)).toBe("none")
  })

  it.runIf(process.env["RELAY_STUDIO_DOCS_SHOT"] === "1")("writes docs/studio.png", async () => {
    await page.setViewport({ width: 1440, height: 900 })
    await openThread(3)
    await page.click(`g.node[data-id="${ids.get("t3-5")!}"]`)
    await page.waitForSelector("#fact-status")
    await page.mouse.move(1, 1)
    await page.screenshot({ path: "docs/studio.png" })
  })
})
