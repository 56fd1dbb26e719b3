import { randomUUID } from "node:crypto"
import { storeThreadClusters } from "../../bench/bulkLoad.js"
import { normaliseContent } from "../../src/domain/content.js"
import { clockSetQuery } from "../../src/layers/database/clock.js"
import type { ToolCallResult } from "../support/mcpClient.js"
import type { Admin } from "../support/proof.js"

/**
 * Hostile shapes written straight into a graph in batched UNWINDs (thousands of MCP calls would take
 * minutes), in the form relay_save_fact leaves them: stamped facts, BUILDS_ON, a ForkMark on every
 * forked parent and the RelayClock at the last stamp.
 */

/** `n` characters of text that is as costly as text gets in a reply: quotes, backslashes, line breaks. */
export const longText = (label: string, n = 2000): string => {
  const head = `${label}: `
  const filler = "say \"no\" \\ then\nwait; ".repeat(Math.ceil(n / 20))
  return (head + filler).slice(0, n).trimEnd() + "."
}

export interface Built {
  readonly id: string
  readonly content: string
  readonly createdAt: number
}

const batch = 250

/** Facts stamped `first`, `first + 1`, ... under `parent` (or roots), in batches; the RelayClock follows. */
export const writeFacts = async (
  admin: Admin,
  graph: string,
  options: {
    readonly count: number
    readonly first: number
    readonly parent: string | null
    readonly content: (i: number) => string
    readonly writer?: (i: number) => string
  }
): Promise<Array<Built>> => {
  const built: Array<Built> = []
  for (let from = 0; from < options.count; from += batch) {
    const rows = []
    for (let i = from; i < Math.min(from + batch, options.count); i++) {
      const content = options.content(i)
      const row = {
        id: randomUUID(),
        content,
        norm: normaliseContent(content),
        w: options.writer?.(i) ?? `writer-${i % 7}`,
        at: options.first + i
      }
      rows.push(row)
      built.push({ id: row.id, content, createdAt: row.at })
    }
    const create =
      "CREATE (c:Fact {id: r.id, content: r.content, norm: r.norm, written_by: r.w, session_id: 'hostile', created_at: r.at})"
    await admin.query(
      graph,
      options.parent === null
        ? `UNWIND $rows AS r ${create}`
        : `MATCH (p:Fact {id: $parent}) UNWIND $rows AS r ${create} CREATE (c)-[:BUILDS_ON]->(p)`,
      { rows, parent: options.parent }
    )
  }
  if (options.parent !== null && new Set(built.map((b) => normaliseContent(b.content))).size > 1) {
    await admin.query(
      graph,
      "MATCH (p:Fact {id: $parent}) MERGE (:ForkMark)-[m:MARKS]->(p) SET m.opened = coalesce(m.opened, 0), m.closed = coalesce(m.closed, -1)",
      { parent: options.parent }
    )
  }
  const last = options.first + options.count - 1
  await admin.query(
    graph,
    clockSetQuery({ last: "CASE WHEN clk.last IS NULL OR clk.last < $last THEN $last ELSE clk.last END" }),
    { last }
  )
  // What the saves would have kept on write: threads and clusters (schema 8).
  await storeThreadClusters((cypher, params) => admin.query(graph, cypher, params))
  return built
}

/** The whole reply as the client received it, in bytes of JSON (structuredContent and the text block). */
export const replyBytes = (r: ToolCallResult): number => Buffer.byteLength(JSON.stringify(r))

/** 1 MiB: what every reply must stay under (the SDK client closes the connection far above it). */
export const replyCap = 1024 * 1024

/** The ids in `lists` each exactly once: returns the duplicates (empty when none). */
export const duplicates = (ids: ReadonlyArray<string>): Array<string> => {
  const seen = new Set<string>()
  return ids.filter((id) => seen.has(id) || (seen.add(id), false))
}
