import type { FalkorDB } from "falkordb"
import type { BenchCall } from "./relay.js"

/** Fresh parents (facts nobody builds on yet): a save takes one and gives its new fact back. */
export class ParentPool {
  private readonly queue: Array<string>
  constructor(leaves: ReadonlyArray<string>) {
    this.queue = [...leaves]
  }
  take(): string {
    const p = this.queue.shift()
    if (p === undefined) throw new Error("parent pool is empty")
    return p
  }
  give(id: string) {
    this.queue.push(id)
  }
}

type Call = BenchCall

export interface Throughput {
  readonly callers: number
  readonly processes: number
  readonly saved: number
  readonly seconds: number
  readonly perSecond: number
}

/** `callers` loops per call function, saving facts under fresh parents for `ms`; counts what was acknowledged. */
export const saveThroughput = async (
  calls: ReadonlyArray<Call>,
  callersPerCall: number,
  pool: ParentPool,
  session: string,
  ms: number
): Promise<Throughput> => {
  let saved = 0
  const started = performance.now()
  const deadline = started + ms
  const loop = async (call: Call, k: number) => {
    while (performance.now() < deadline) {
      const parent = pool.take()
      const r = await call("relay_save_fact", {
        content: `Throughput: worker ${k} notes build ${saved} is green`,
        written_by: "bench-writer",
        session_id: session,
        parent_fact_id: parent
      })
      pool.give(r.fact.id)
      saved++
    }
  }
  await Promise.all(
    calls.flatMap((call, c) => Array.from({ length: callersPerCall }, (_, k) => loop(call, c * 100 + k)))
  )
  const seconds = (performance.now() - started) / 1000
  return { callers: callersPerCall * calls.length, processes: calls.length, saved, seconds, perSecond: saved / seconds }
}

export const countSession = async (client: FalkorDB, graphName: string, session: string): Promise<number> => {
  const r = await client.selectGraph(graphName).roQuery<{ n: number }>(
    `MATCH (f:Fact) WHERE f.session_id = $s RETURN count(f) AS n`,
    { params: { s: session } }
  )
  return r.data?.[0]?.n ?? 0
}
