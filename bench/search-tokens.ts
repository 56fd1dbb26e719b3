/**
 * What "what did we decide about refresh tokens?" costs an assistant: one relay_search call on a
 * realistic 220-fact memory (the demo story's auth and migration threads with their settled fork,
 * among bench/graph.ts's threads of other work), measured on the text the model reads and on the
 * structured result.
 *
 *   node --import tsx bench/search-tokens.ts
 *
 * `measure` takes the counting function, so a real tokenizer (o200k) can be passed where one is
 * installed; this file installs nothing and prints characters and characters / 4, a rough estimate
 * of tokens for English text.
 */
import { randomBytes } from "node:crypto"
import { resolveArguments, saveArguments, storyFacts } from "../src/demo/story.js"
import { callTool, type ToolResult } from "../src/mcp/callTool.js"
import { tools } from "../src/tools/registry.js"
import { bareClient, openDatabase } from "./db.js"
import { generateGraph, loadGraph } from "./graph.js"
import { recordedRelay } from "./relay.js"

export type Count = (text: string) => number

export const questions: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["what did we decide about refresh tokens", { query: "refresh tokens" }],
  ["... including what lost (status any)", { query: "refresh tokens", status: "any" }],
  ["which facts mention Postgres", { query: "postgre*" }]
]

/** The size of each answer: the text block the model reads and the structuredContent JSON. */
export const measure = (answers: ReadonlyArray<readonly [string, ToolResult]>, count: Count) =>
  answers.map(([label, r]) => {
    const text = r.content.map((c) => c.text).join("\n")
    const json = JSON.stringify(r.structuredContent)
    return { label, hits: (r.structuredContent.hits as Array<unknown>).length, textChars: text.length, text: count(text), jsonChars: json.length, json: count(json) }
  })

const roughTokens: Count = (text) => Math.ceil(text.length / 4)

const main = async () => {
  const db = await openDatabase()
  const name = `bench_tokens_${randomBytes(4).toString("hex")}`
  const client = await bareClient(db)
  const { runtime } = recordedRelay(db, name)
  const byName = new Map(tools.map((t) => [t.name, t]))
  const call = (tool: string, args: Record<string, unknown>) => runtime.runPromise(callTool(byName.get(tool)!, args))
  try {
    const others = generateGraph(220 - storyFacts.length, Date.now() - 60 * 60 * 1000)
    await loadGraph(client, name, others)
    const ids = new Map<string, string>()
    for (const fact of storyFacts) {
      const r = await call("relay_save_fact", saveArguments(fact, ids))
      ids.set(fact.key, (r.structuredContent.fact as { id: string }).id)
    }
    await call("relay_resolve_conflict", resolveArguments(ids))
    const total = await client.selectGraph(name).roQuery<{ n: number }>("MATCH (f:Fact) RETURN count(f) AS n")
    console.log(`memory: ${total.data?.[0]?.n} facts (${others.supersedes.length + 1} decisions)\n`)

    const answers: Array<readonly [string, ToolResult]> = []
    for (const [label, args] of questions) answers.push([label, await call("relay_search", args)])
    console.log(`${"question".padEnd(42)} ${"hits".padStart(4)} ${"text chars".padStart(10)} ${"~tokens".padStart(8)} ` +
      `${"json chars".padStart(10)} ${"~tokens".padStart(8)}`)
    for (const m of measure(answers, roughTokens)) {
      console.log(`${m.label.padEnd(42)} ${String(m.hits).padStart(4)} ${String(m.textChars).padStart(10)} ` +
        `${String(m.text).padStart(8)} ${String(m.jsonChars).padStart(10)} ${String(m.json).padStart(8)}`)
    }
    console.log("\n~tokens = characters / 4 (no tokenizer installed); target: <= 600 tokens for the first answer.")
    console.log("\nThe first answer as the model reads it:\n" + answers[0]![1].content[0]!.text)
  } finally {
    await runtime.dispose()
    await client.selectGraph(name).delete().catch(() => undefined)
    await client.close().catch(() => undefined)
    await db.stop()
  }
}

if (process.argv[1]?.endsWith("search-tokens.ts") === true) await main()
