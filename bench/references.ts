import type { FalkorDB } from "falkordb"
import { randomUUID } from "node:crypto"
import type { GeneratedGraph } from "./graph.js"
import { isFailed, type ToolLatency } from "./levels.js"
import { sample, type SampleOptions, type Stats } from "./sampler.js"

/**
 * What the database alone costs on this machine in this run, the yardstick of issue 22's targets
 * (machines here differ ~2x, so the targets are ratios): a bare indexed CREATE of a fact, a bare
 * indexed point MATCH, and the reference page, 20 facts of the graph read by indexed id, each on
 * the bare client against the graph under measurement.
 */
export interface References {
  readonly create: Stats
  readonly pointMatch: Stats
  readonly page20: Stats
}

const options: SampleOptions = { warmup: 20, min: 50, max: 400, budgetMs: 1500 }

export const measureReferences = async (
  client: FalkorDB,
  graphName: string,
  g: GeneratedGraph
): Promise<References> => {
  const graph = client.selectGraph(graphName)
  const ids = g.facts.map((f) => f.id)
  const pick = (i: number) => ids[(i * 7919) % ids.length]!
  const made: Array<string> = []
  const create = await sample(() => {
    const id = randomUUID()
    made.push(id)
    return graph.query(
      `CREATE (:Fact {id: $id, content: $content, written_by: 'bench', session_id: 'bench:ref', created_at: $at})`,
      { params: { id, content: "a reference write of about the length of a fact", at: g.lastStamp } }
    )
  }, options)
  await graph.query(`UNWIND $ids AS id MATCH (f:Fact {id: id}) DELETE f`, { params: { ids: made } })
  const pointMatch = await sample(
    (i) => graph.roQuery(`MATCH (f:Fact {id: $id}) RETURN f.content AS content`, { params: { id: pick(i) } }),
    options
  )
  const page20 = await sample(
    (i) =>
      graph.roQuery(
        `UNWIND $ids AS id MATCH (f:Fact {id: id}) ` +
          `RETURN f.id AS id, f.content AS content, f.written_by AS w, f.session_id AS s, f.created_at AS at`,
        { params: { ids: Array.from({ length: 20 }, (_, k) => pick(i * 20 + k)) } }
      ),
    options
  )
  return { create, pointMatch, page20 }
}

/** Each target of issue 22 as this run measured it: the ratio, the bound, and whether it holds. */
export const targetsTable = (refs: References, tools: Record<string, ToolLatency>): string => {
  const p50 = (tool: string, level: "floor" | "e2e") => {
    const t = tools[tool]?.[level]
    return t === undefined || isFailed(t) ? NaN : t.p50
  }
  const rows: Array<[string, string, number, number]> = [
    ["relay_save_fact floor / bare CREATE", "x", p50("relay_save_fact", "floor") / refs.create.p50, 3]
  ]
  for (const tool of ["relay_get_context", "relay_get_impact", "relay_get_current_state"]) {
    rows.push([`${tool} floor / reference page`, "x", p50(tool, "floor") / refs.page20.p50, 3])
  }
  for (const tool of ["relay_save_fact", "relay_get_context", "relay_get_impact", "relay_get_current_state"]) {
    rows.push([`${tool} e2e - floor`, "ms", p50(tool, "e2e") - p50(tool, "floor"), 1])
  }
  for (
    const tool of [
      "relay_get_clusters",
      "studio threads list",
      "thread scope (current_state)",
      "relay_get_important_facts"
    ]
  ) {
    rows.push([`${tool} floor / reference page (issue 42)`, "x", p50(tool, "floor") / refs.page20.p50, 3])
  }
  for (const tool of ["relay_detect_conflicts", "relay_get_briefing"]) {
    rows.push([`${tool} e2e / reference page`, "x", p50(tool, "e2e") / refs.page20.p50, 10])
  }
  const head = `  references p50: bare CREATE ${refs.create.p50.toFixed(2)} ms, bare point MATCH ${
    refs.pointMatch.p50.toFixed(2)
  } ms, reference page (20 facts by id) ${refs.page20.p50.toFixed(2)} ms`
  return [
    head,
    ...rows.map(([what, unit, value, bound]) =>
      `  ${what.padEnd(64)}${(unit === "x" ? `x${value.toFixed(1)}` : `${value.toFixed(2)} ms`).padStart(10)}` +
      `   target <= ${unit === "x" ? `x${bound}` : `${bound} ms`}   ${
        Number.isNaN(value) ? "?" : value <= bound ? "met" : "MISSED"
      }`
    )
  ].join("\n")
}
