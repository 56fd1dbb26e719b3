import { type Failed, isFailed, type ToolLatency } from "./levels.js"
import type { Comparison } from "./memoryServer.js"
import type { References } from "./references.js"
import type { Stats } from "./sampler.js"
import type { Throughput } from "./throughput.js"

export interface SizeResult {
  readonly size: number
  readonly graph: Record<string, number>
  readonly loadSeconds: number
  readonly tools: Record<string, ToolLatency>
  /** The database alone on this machine in this run (references.ts): what the targets are ratios of. */
  readonly references?: References
  readonly throughput: {
    readonly inproc: ReadonlyArray<Throughput>
    readonly stdio: ReadonlyArray<Throughput>
    readonly processes: Throughput
  }
  readonly rssMb: { readonly afterLatency: number; readonly afterThroughput: number }
  readonly comparison?: Comparison
}

const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2))
const triple = (s: Stats) => `${ms(s.p50)}/${ms(s.p95)}/${ms(s.p99)}`
const ratio = (a: number, b: number) => `x${(a / b).toFixed(1)}`
const pad = (s: string, n: number) => s.padEnd(n)
const lpad = (s: string, n: number) => s.padStart(n)

export const latencyTable = (r: SizeResult): string => {
  const head = `${pad("tool", 26)}${lpad("floor p50/95/99", 20)}${lpad("in-process p50/95/99", 24)}${lpad("", 7)}` +
    `${lpad("e2e stdio p50/95/99", 22)}${lpad("", 7)}${lpad("+in-proc", 10)}`
  const cell = (x: Stats | Failed) => isFailed(x) ? "failed" : triple(x)
  const p50 = (x: Stats | Failed) => isFailed(x) ? NaN : x.p50
  const failures: Array<string> = []
  const rows = Object.entries(r.tools).map(([tool, t]) => {
    for (const [level, x] of Object.entries(t)) if (isFailed(x)) failures.push(`  ${tool} ${level}: ${x.error}`)
    return `${pad(tool, 26)}${lpad(cell(t.floor), 20)}${lpad(cell(t.inproc), 24)}${
      lpad(ratio(p50(t.inproc), p50(t.floor)), 7)
    }` +
      `${lpad(cell(t.e2e), 22)}${lpad(ratio(p50(t.e2e), p50(t.floor)), 7)}${
        lpad(`${ms(p50(t.inproc) - p50(t.floor))}`, 10)
      }`
  })
  return [head, ...rows, ...failures].join("\n")
}

export const throughputLine = (r: SizeResult): string => {
  const f = (t: Throughput) => `${t.perSecond.toFixed(0)}/s`
  return `  saves/s  in-process 1/4/16 callers: ${r.throughput.inproc.map(f).join(" / ")}   ` +
    `one stdio server 1/4/16: ${r.throughput.stdio.map(f).join(" / ")}   ` +
    `4 server processes x4 callers: ${f(r.throughput.processes)}\n` +
    `  server RSS: ${r.rssMb.afterLatency.toFixed(0)} MB after the latency runs, ${
      r.rssMb.afterThroughput.toFixed(0)
    } MB after throughput`
}

export const comparisonTable = (cs: ReadonlyArray<Comparison>): string => {
  if (cs.length === 0) return ""
  const head = `${pad("facts", 8)}${pad("work (p50/p95/p99 ms)", 30)}${lpad("relay", 20)}${lpad("server-memory", 22)}${
    lpad("ratio", 9)
  }`
  const rows = cs.flatMap((c) => {
    const row = (label: string, a: Stats, b: Stats) =>
      `${pad(String(c.size), 8)}${pad(label, 30)}${lpad(triple(a), 20)}${lpad(triple(b), 22)}${
        lpad(ratio(b.p50, a.p50), 9)
      }`
    const landed = (x: { landed: number; relationsLanded?: number; acknowledged: number }) =>
      `${x.landed}/20${x.relationsLanded === undefined ? "" : ` (+${x.relationsLanded} rel)`} ack ${x.acknowledged}`
    const k = c.concurrent
    return [
      row("save fact building on another", c.relay.saveBuildsOn, c.memory.saveBuildsOn),
      row("read a fact's chain", c.relay.readChain, c.memory.readChain),
      row("recent facts", c.relay.recent, c.memory.recent),
      `${pad(String(c.size), 8)}${pad("20 concurrent writes, 1 client", 30)}${lpad(landed(k.relayOneClient), 20)}${
        lpad(landed(k.memoryOneClient), 22)
      }`,
      `${pad(String(c.size), 8)}${pad("20 concurrent writes, 2 procs", 30)}${lpad(landed(k.relayTwoProcesses), 20)}${
        lpad(landed(k.memoryTwoProcesses), 22)
      }`
    ]
  })
  return [head, ...rows].join("\n")
}
