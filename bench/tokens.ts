/**
 * What Relay costs an assistant in context tokens, counted with a real tokenizer (o200k, the GPT-4o
 * family's; gpt-tokenizer, pure JS), on a generated realistic 220-fact memory in a graph of its own
 * (dropped after): the story's auth and migration threads among bench/graph.ts's threads of other
 * work, squeezed into the last 23 hours so a 24-hour briefing sees all of it.
 *
 *   npm run bench:tokens
 *
 * Two readings of every reply are counted, because clients differ in what they hand the model:
 * - text: the reply's text content block (Claude.ai, ChatGPT and most clients give the model this);
 * - json: JSON.stringify(structuredContent) (Claude Code hands the model only this whenever
 *   structuredContent is present: anthropics/claude-code issues 55677 and 79944), in the default
 *   compact form (`--full`: RELAY_STRUCTURED_CONTENT=full's whole ids and stamps instead).
 * `--show` prints each reply's text, `--json` its structuredContent.
 * tools/list is counted as names, descriptions and input schemas (JSON), what a model is shown of a tool.
 */
import { Effect } from "effect"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { randomBytes } from "node:crypto"
import { resolveArguments, saveArguments, storyFacts } from "../src/demo/story.js"
import { callTool, type ToolResult } from "../src/mcp/callTool.js"
import { listing } from "../src/mcp/mcpHandlers.js"
import { jsonForm } from "../src/mcp/replyForm.js"
import { tools } from "../src/tools/registry.js"
import { bareClient, openDatabase } from "./db.js"
import { type GeneratedGraph, generateGraph, loadGraph } from "./graph.js"
import { recordedRelay } from "./relay.js"

const hour = 60 * 60 * 1000

/** The generator's four weeks, squeezed into the `hours` before `endAt` (order and shape kept). */
const squeeze = (g: GeneratedGraph, endAt: number, hours: number): GeneratedGraph => {
  const first = g.facts[0]?.created_at ?? endAt
  const span = Math.max(1, endAt - first)
  const at = (t: number) => endAt - Math.ceil(((endAt - t) / span) * hours * hour)
  return {
    ...g,
    facts: g.facts.map((f) => ({ ...f, created_at: at(f.created_at) })),
    supersedes: g.supersedes.map((s) => ({ ...s, created_at: at(s.created_at) })),
    lastStamp: at(g.lastStamp)
  }
}

export interface Row {
  readonly what: string
  readonly target: number
  readonly text: number
  readonly json: number
  readonly note: string
}

export const toolsListTokens = () =>
  listing.map((t) => ({
    name: t.name,
    tokens: countTokens(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema }))
  }))

/** A fact's or task's id in either form: the compact form gives its line, which opens with its short id (inputs take it). */
const factId = (f: unknown): string => typeof f === "string" ? f.split(" ")[0]! : (f as { id: string }).id

const textOf = (r: ToolResult) => r.content.map((c) => c.text).join("\n")

export const measureAll = async (): Promise<{ rows: ReadonlyArray<Row>; samples: Record<string, string> }> => {
  const db = await openDatabase()
  const name = `bench_tokens_${randomBytes(4).toString("hex")}`
  const client = await bareClient(db)
  const { runtime } = recordedRelay(db, name)
  const byName = new Map(tools.map((t) => [t.name, t]))
  const call = async (tool: string, args: Record<string, unknown>) => {
    // What a client is sent under RELAY_STRUCTURED_CONTENT (compact unless --full).
    const r = await runtime.runPromise(
      Effect.locally(callTool(byName.get(tool)!, args), jsonForm, process.argv.includes("--full") ? "full" : "compact")
    )
    if (r.isError === true) throw new Error(`${tool}: ${textOf(r)} ${JSON.stringify(args)}`)
    return r
  }
  const rows: Array<Row> = []
  const samples: Record<string, string> = {}
  const add = (what: string, target: number, r: ToolResult, note: string) => {
    rows.push({
      what,
      target,
      text: countTokens(textOf(r)),
      json: countTokens(JSON.stringify(r.structuredContent)),
      note
    })
    samples[what] = process.argv.includes("--json") ? JSON.stringify(r.structuredContent, null, 1) : textOf(r)
  }
  try {
    const chainDepth = 20
    const now = Date.now()
    const others = squeeze(generateGraph(220 - storyFacts.length - chainDepth, now - hour), now - 2 * 60_000, 23)
    await loadGraph(client, name, others)
    const ids = new Map<string, string>()
    for (const fact of storyFacts) {
      const r = await call("relay_save_fact", saveArguments(fact, ids))
      ids.set(fact.key, factId(r.structuredContent.fact))
    }
    const resolved = await call("relay_resolve_conflict", resolveArguments(ids))
    let parent: string | undefined
    for (let i = 0; i < chainDepth; i++) {
      const r = await call("relay_save_fact", {
        content: `Ingest step ${i + 1}: ${
          [
            "validate the CSV header",
            "dedupe rows by checksum",
            "batch 500 rows per insert",
            "retry a failed batch twice with backoff",
            "write an audit line per batch"
          ][i % 5]
        } before the nightly export`,
        written_by: i % 2 === 0 ? "codex-cli" : "cursor",
        session_id: "codex-cli:ingest-plan",
        ...(parent === undefined ? {} : { parent_fact_id: parent })
      })
      parent = factId(r.structuredContent.fact)
    }
    const total = await client.selectGraph(name).roQuery<{ n: number }>("MATCH (f:Fact) RETURN count(f) AS n")
    console.error(`memory: ${total.data?.[0]?.n} facts, ${others.supersedes.length + 1} SUPERSEDES edges`)

    const perTool = toolsListTokens()
    const listTokens = countTokens(
      JSON.stringify(listing.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })))
    )
    rows.push({
      what: "tools/list",
      target: 2000,
      text: listTokens,
      json: listTokens,
      note: perTool.map((t) => `${t.name.replace("relay_", "")} ${t.tokens}`).join(", ")
    })

    const search = await call("relay_search", { query: "refresh tokens" })
    add("search \"refresh tokens\"", 600, search, `${(search.structuredContent.hits as Array<unknown>).length} hits`)

    const since = new Date(now - 24 * hour).toISOString()
    const briefing = await call("relay_get_briefing", { my_name: "bench-reader", since })
    const b = briefing.structuredContent as {
      as_of: string
      new_facts: Array<unknown>
      decisions: Array<unknown>
      open_conflicts: Array<unknown>
    }
    add(
      "24-hour briefing (first page)",
      8000,
      briefing,
      `${b.new_facts.length} facts, ${b.decisions.length} decisions, ${b.open_conflicts.length} conflicts`
    )

    const budgeted = await call("relay_get_briefing", { my_name: "bench-reader", since, max_tokens: 6000 })
    const bb = budgeted.structuredContent as typeof b
    add(
      "24-hour briefing, max_tokens 6000",
      8000,
      budgeted,
      `${bb.new_facts.length} facts, ${bb.decisions.length} decisions, ${bb.open_conflicts.length} conflicts`
    )

    const empty = await call("relay_get_briefing", { my_name: "bench-reader", since: b.as_of })
    const e = empty.structuredContent as { open_conflicts: Array<unknown>; unchanged_conflicts: number }
    add(
      "briefing with nothing new",
      100,
      empty,
      `${e.open_conflicts.length} conflicts listed, ${e.unchanged_conflicts} unchanged counted`
    )

    // Every other tool once, on the same memory: both columns for each.
    const redis = ids.get("redis")!
    const plain = await call("relay_save_fact", {
      content: "Refresh tokens are hashed with SHA-256 before they are stored",
      written_by: "bench-writer",
      session_id: "bench",
      parent_fact_id: redis,
      kind: "detail"
    })
    add("save a detail", 300, plain, "no fork")
    const fork = await call("relay_save_fact", {
      content: "Store refresh tokens in Postgres",
      written_by: "bench-writer",
      session_id: "bench",
      parent_fact_id: ids.get("auth")!,
      kind: "choice"
    })
    add("save a choice that forks", 600, fork, "fork reported with the compatible call")
    const revision = await call("relay_save_fact", {
      content: "Key refresh tokens in Redis by user id with a 14-day TTL",
      written_by: "bench-writer",
      session_id: "bench",
      kind: "detail",
      supersedes: ids.get("redis-ttl")!,
      reason: "30 days outlives a stolen laptop"
    })
    add("save a revision (supersedes)", 600, revision, "one call: save + SUPERSEDES")
    add("current_state (20)", 2500, await call("relay_get_current_state", {}), "default page")
    add("detect_conflicts", 4000, await call("relay_detect_conflicts", {}), "default page")
    add("impact of the auth root", 1500, await call("relay_get_impact", { fact_id: ids.get("auth")! }), "")
    add("important facts (10)", 1500, await call("relay_get_important_facts", {}), "")
    add(
      "clusters (limit 5, 3 facts each)",
      2500,
      await call("relay_get_clusters", { limit: 5, facts_per_cluster: 3 }),
      ""
    )
    const plainId = factId(plain.structuredContent.fact)
    const pepper = await call("relay_save_fact", {
      content: "The hashing pepper rotates every year",
      written_by: "bench-writer",
      session_id: "bench",
      parent_fact_id: plainId,
      kind: "detail"
    })
    add(
      "retract a fact",
      600,
      await call("relay_retract_fact", {
        fact_id: plainId,
        reason: "hashing moved to the token service",
        retracted_by: "bench-writer"
      }),
      "one dependent made stale"
    )
    add(
      "confirm a stale fact",
      300,
      await call("relay_confirm_fact", {
        fact_id: factId(pepper.structuredContent.fact),
        reason: "the token service keeps the yearly rotation",
        confirmed_by: "bench-writer"
      }),
      "it turns current again"
    )

    add("resolve a conflict", 600, resolved, "the story's decision")
    const posted = await call("relay_post_task", {
      title: "Rotate the refresh-token signing key",
      written_by: "bench-writer",
      detail: "The old key leaked into a CI log; rotate it and revoke tokens it signed",
      about: [ids.get("redis")!]
    })
    add("post a task", 600, posted, "about one fact")
    const task = factId(posted.structuredContent.task)
    const claimed = await call("relay_claim_task", { claimed_by: "bench-worker", task_id: task })
    add("claim a task", 600, claimed, "by id")
    add(
      "finish a task",
      600,
      await call("relay_finish_task", {
        task_id: task,
        claimed_by: "bench-worker",
        fencing_token: claimed.structuredContent.fencing_token,
        outcome: "failed",
        note: "the key service was down; retry after 14:00"
      }),
      "failed with a note"
    )
    add("list tasks", 2500, await call("relay_list_tasks", {}), "default page")

    const context = await call("relay_get_context", { fact_id: parent })
    add(
      "context of a 20-deep chain",
      900,
      context,
      `${(context.structuredContent.chain as Array<unknown>).length} facts`
    )
  } finally {
    await runtime.dispose()
    await client.selectGraph(name).delete().catch(() => undefined)
    await client.close().catch(() => undefined)
    await db.stop()
  }
  return { rows, samples }
}

export const printTable = (rows: ReadonlyArray<Row>) => {
  const pad = (s: string | number, n: number) => String(s).padStart(n)
  console.log(
    `${"what the model reads".padEnd(32)} ${pad("target", 7)} ${pad("text", 7)} ${pad("json", 7)} ${
      pad("json/text", 9)
    }  ok  note`
  )
  for (const r of rows) {
    const ok = r.text <= r.target ? (r.json <= r.target ? "both" : "text") : r.json <= r.target ? "json" : "NO"
    console.log(
      `${r.what.padEnd(32)} ${pad(r.target, 7)} ${pad(r.text, 7)} ${pad(r.json, 7)} ${
        pad((r.json / r.text).toFixed(2), 9)
      }  ${ok.padEnd(4)} ${r.note}`
    )
  }
  console.log(
    "\ntokens: o200k (gpt-tokenizer). text = the reply's text block; json = JSON.stringify(structuredContent)," +
      " which Claude Code gives the model instead of the text (compact form unless --full).\ntools/list = names, descriptions and input schemas as JSON (the same in both columns)."
  )
}

if (process.argv[1]?.endsWith("tokens.ts") === true) {
  const { rows, samples } = await measureAll()
  printTable(rows)
  if (process.argv.includes("--show") || process.argv.includes("--json")) {
    for (const [what, text] of Object.entries(samples)) console.log(`\n=== ${what} (text) ===\n${text}`)
  }
}
