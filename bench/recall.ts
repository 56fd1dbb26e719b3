/**
 * Recall of `relay_search` on LoCoMo (Maharana et al., 2024: long multi-session conversations with
 * questions whose evidence is named by dialog turn), beside a plain BM25 over the same texts.
 * LoCoMo is not shipped here (its licence is non-commercial): get `data/locomo10.zip` (or
 * `locomo10.json`) from github.com/snap-research/locomo, then
 *
 *   npm run bench:recall -- <path to locomo10.json or .zip>     (RECALL_CONVERSATIONS=n for the first n)
 *
 * Each conversation is one graph of its own (dropped after): each session a root fact naming its
 * date, each dialog turn a fact `<speaker>: <text>` on the turn before it. Each question but the
 * adversarial ones (category 5, whose answer is not in the conversation) is asked of
 * `relay_search` as asked, one query, limit 10. A question counts as found at k when any of its
 * evidence turns is among the first k hits. The BM25 beside it ranks the same turn texts for the
 * same question (k1 1.2, b 0.75, lower-cased words, no stemming, no stop words).
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { basename } from "node:path"
import { bareClient, type BenchDatabase, openDatabase } from "./db.js"
import { inProcessRelay } from "./relay.js"

export interface Turn {
  readonly dia_id: string
  readonly speaker: string
  readonly text: string
}

export interface Question {
  readonly question: string
  readonly evidence: ReadonlyArray<string>
  readonly category: number
}

export interface Conversation {
  readonly id: string
  readonly sessions: ReadonlyArray<{ readonly date: string; readonly turns: ReadonlyArray<Turn> }>
  readonly questions: ReadonlyArray<Question>
}

type Raw = Record<string, unknown>

/**
 * LoCoMo's samples: `conversation.session_<n>` (with `session_<n>_date_time`) and `qa`. The zip in
 * the repository's `data/` holds one file a conversation instead, its sessions at the top level
 * beside `qa`: such a sample is its own conversation.
 */
export const parseLocomo = (json: unknown): ReadonlyArray<Conversation> =>
  (json as ReadonlyArray<Raw>).map((sample, i) => {
    const conversation = (sample["conversation"] ?? sample) as Raw
    const numbers = Object.keys(conversation)
      .flatMap((k) => /^session_(\d+)$/.exec(k)?.[1] ?? [])
      .map(Number)
      .sort((a, b) => a - b)
    return {
      id: String(sample["sample_id"] ?? `conversation ${i + 1}`),
      sessions: numbers.map((n) => ({
        date: String(conversation[`session_${n}_date_time`] ?? `session ${n}`),
        turns: (conversation[`session_${n}`] as ReadonlyArray<Raw>).map((t) => ({
          dia_id: String(t["dia_id"]),
          speaker: String(t["speaker"]),
          text: String(t["text"])
        }))
      })),
      questions: (sample["qa"] as ReadonlyArray<Raw>).map((q) => ({
        question: String(q["question"]),
        evidence: ((q["evidence"] as ReadonlyArray<unknown> | undefined) ?? []).map(String),
        category: Number(q["category"])
      }))
    }
  })

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** A plain BM25 ranking of `docs` for each query. */
export const bm25 = (docs: ReadonlyArray<string>) => {
  const k1 = 1.2
  const b = 0.75
  const terms = docs.map(words)
  const average = terms.reduce((n, t) => n + t.length, 0) / Math.max(1, docs.length)
  const df = new Map<string, number>()
  for (const t of terms) for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1)
  const counts = terms.map((t) => {
    const c = new Map<string, number>()
    for (const w of t) c.set(w, (c.get(w) ?? 0) + 1)
    return c
  })
  return (query: string, limit: number): ReadonlyArray<number> => {
    const q = [...new Set(words(query))]
    const scored = counts.map((c, i) => {
      let score = 0
      for (const w of q) {
        const f = c.get(w) ?? 0
        if (f === 0) continue
        const n = df.get(w)!
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5))
        score += idf * (f * (k1 + 1)) / (f + k1 * (1 - b + b * terms[i]!.length / average))
      }
      return { i, score }
    })
    return scored.filter((s) => s.score > 0).sort((x, y) => y.score - x.score || x.i - y.i).slice(0, limit).map((s) =>
      s.i
    )
  }
}

/** Whether any evidence turn is among the first `k` ranked turns. */
export const foundAt = (ranked: ReadonlyArray<string>, evidence: ReadonlyArray<string>, k: number) =>
  ranked.slice(0, k).some((id) => evidence.includes(id))

export interface Recall {
  readonly id: string
  readonly questions: number
  readonly relay: { readonly at5: number; readonly at10: number }
  readonly bm25: { readonly at5: number; readonly at10: number }
}

const turnText = (t: Turn) => `${t.speaker}: ${t.text}`

const measure = async (db: BenchDatabase, conversation: Conversation): Promise<Recall> => {
  const graph = `bench_recall_${randomBytes(4).toString("hex")}`
  const relay = inProcessRelay(db, graph)
  try {
    const dia = new Map<string, string>()
    const texts: Array<string> = []
    const ids: Array<string> = []
    for (const session of conversation.sessions) {
      let parent = (await relay.call("relay_save_fact", {
        content: `Conversation session of ${session.date}`,
        written_by: "locomo",
        session_id: conversation.id
      })).fact.id
      for (const turn of session.turns) {
        const saved = await relay.call("relay_save_fact", {
          content: turnText(turn),
          parent_fact_id: parent,
          kind: "detail",
          written_by: "locomo",
          session_id: conversation.id
        })
        parent = saved.fact.id
        dia.set(parent, turn.dia_id)
        texts.push(turnText(turn))
        ids.push(turn.dia_id)
      }
    }
    const rank = bm25(texts)
    const asked = conversation.questions.filter((q) => q.category !== 5 && q.evidence.length > 0)
    const tally = { relay: { at5: 0, at10: 0 }, bm25: { at5: 0, at10: 0 } }
    for (const q of asked) {
      const hits = (await relay.call("relay_search", { query: q.question, limit: 10 })).hits
      const byRelay = hits.flatMap((h) => dia.get(h.fact.id) ?? [])
      const byBm25 = rank(q.question, 10).map((i) => ids[i]!)
      for (const [who, ranked] of [["relay", byRelay], ["bm25", byBm25]] as const) {
        if (foundAt(ranked, q.evidence, 5)) tally[who].at5++
        if (foundAt(ranked, q.evidence, 10)) tally[who].at10++
      }
    }
    return { id: conversation.id, questions: asked.length, ...tally }
  } finally {
    await relay.dispose()
    const client = await bareClient(db)
    await client.selectGraph(graph).delete().catch(() => undefined)
    await client.close()
  }
}

const unzip = (args: ReadonlyArray<string>) => execFileSync("unzip", args, { maxBuffer: 256 * 1024 * 1024 }).toString()

/** locomo10.json, or a zip holding it, or a zip of one `<n>.json` a conversation. */
const read = (path: string): unknown => {
  if (!path.endsWith(".zip")) return JSON.parse(readFileSync(path, "utf8"))
  const entries = unzip(["-Z1", path]).split("\n").filter((e) => e.endsWith(".json"))
  const whole = entries.find((e) => e.endsWith("locomo10.json"))
  if (whole !== undefined) return JSON.parse(unzip(["-p", path, whole]))
  return entries.sort().map((e) => ({
    sample_id: `conv-${basename(e, ".json")}`,
    ...JSON.parse(unzip(["-p", path, e])) as Raw
  }))
}

const percent = (n: number, of: number) => `${(100 * n / Math.max(1, of)).toFixed(1)}%`

export const recallTable = (rows: ReadonlyArray<Recall>): string => {
  const total = rows.reduce(
    (t, r) => ({
      id: "all",
      questions: t.questions + r.questions,
      relay: { at5: t.relay.at5 + r.relay.at5, at10: t.relay.at10 + r.relay.at10 },
      bm25: { at5: t.bm25.at5 + r.bm25.at5, at10: t.bm25.at10 + r.bm25.at10 }
    }),
    { id: "all", questions: 0, relay: { at5: 0, at10: 0 }, bm25: { at5: 0, at10: 0 } }
  )
  const line = (r: Recall) =>
    `${r.id.padEnd(14)}${String(r.questions).padStart(10)}${percent(r.relay.at5, r.questions).padStart(12)}${
      percent(r.relay.at10, r.questions).padStart(12)
    }${percent(r.bm25.at5, r.questions).padStart(12)}${percent(r.bm25.at10, r.questions).padStart(12)}`
  return [
    `${"conversation".padEnd(14)}${"questions".padStart(10)}${"relay @5".padStart(12)}${"relay @10".padStart(12)}${
      "bm25 @5".padStart(12)
    }${"bm25 @10".padStart(12)}`,
    ...rows.map(line),
    line(total)
  ].join("\n")
}

if (process.argv[1]?.endsWith("recall.ts") === true) {
  const path = process.argv[2]
  if (path === undefined) {
    process.stderr.write("usage: npm run bench:recall -- <path to locomo10.json or a zip holding it>\n")
    process.exit(2)
  }
  const conversations = parseLocomo(read(path)).slice(0, Number(process.env.RECALL_CONVERSATIONS ?? Infinity))
  const db = await openDatabase()
  const rows: Array<Recall> = []
  try {
    for (const c of conversations) {
      rows.push(await measure(db, c))
      process.stderr.write(`${c.id}: done\n`)
    }
  } finally {
    await db.stop()
  }
  process.stdout.write(`${recallTable(rows)}\n`)
}
