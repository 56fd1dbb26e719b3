import type { Page } from "../tools/render/page.js"

type Node = Record<string, unknown>

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v)

/** Keys whose value is a fact id, wherever they sit; a fact's own `id` is one too (see isFact). */
const factIdKeys = new Set(["parent_id", "fact_id", "winner_id", "loser_id", "thread"])
/** Keys whose value is a list of fact ids. */
const factIdListKeys = new Set(["about"])

/** A Fact (domain/fact.ts), told from a task or a cluster, whose `id` is not a fact id. */
const isFact = (node: Node): boolean => typeof node.content === "string" && typeof node.written_by === "string"

/** Fields the text never shows: the session, and a ranking's score (the order says it). */
const unsaid = new Set(["session_id", "score"])

/** What an item leaves out; the reply's own fields all stay (a `task: null` says there was none). */
const leftOut = (key: string, value: unknown, top: boolean): boolean =>
  unsaid.has(key) || (!top && (value === null || value === false || (key === "status" && value === "active") ||
    (Array.isArray(value) && value.length === 0)))

/**
 * The compact form of a tool's structuredContent, for clients that hand the model the JSON instead
 * of the text (Claude Code): the same reply with what the text leaves unsaid left out too. Fact ids
 * are the reply's short ids (inputs take them back); `created_at` becomes `age`, as the text writes
 * it; inside an item a null, a false, an empty list and an `active` status are left out (the reply's
 * own fields all stay), and everywhere a fact's `session_id` and a ranking's `score`; a chain's
 * items after the first leave out the parent (the item before). Whole ids and stamps:
 * RELAY_STRUCTURED_CONTENT=full.
 */
export const compactReply = (encoded: Node, page: Page): Node => {
  const walk = (value: unknown, key: string, top: boolean): unknown => {
    if (Array.isArray(value)) {
      if (factIdListKeys.has(key)) return value.map((v) => typeof v === "string" ? page.id(v) : v)
      const items = value.map((v) => walk(v, "", false))
      return key === "chain" ? items.map((item, i) => i > 0 && isNode(item) ? withoutParent(item) : item) : items
    }
    if (!isNode(value)) return value
    const fact = isFact(value)
    const out: Node = {}
    for (const [k, v] of Object.entries(value)) {
      if (leftOut(k, v, top)) continue
      if (k === "created_at" && typeof v === "string") out.age = page.when(v)
      else if (typeof v === "string" && (factIdKeys.has(k) || (k === "id" && fact))) out[k] = page.id(v)
      else out[k] = walk(v, k, false)
    }
    return out
  }
  return walk(encoded, "", true) as Node
}

const withoutParent = ({ parent_id: _, ...rest }: Node): Node => rest

const ageSchema = { type: "string", description: "How long ago (\"3h ago\"), as the text says" }

const renamed = (name: string): string | null => unsaid.has(name) ? null : name === "created_at" ? "age" : name

/**
 * The outputSchema of the compact form, from the full one: `created_at` becomes `age`, `session_id`
 * and `score` go, and below the reply's own fields nothing is required (items leave out nulls,
 * falses and defaults). The reply's own fields (a top-level schema's, each branch of its union)
 * stay required.
 */
export const compactSchema = (schema: Node): Node => {
  const walk = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, top))
    if (!isNode(node)) return node
    const out: Node = {}
    for (const [k, v] of Object.entries(node)) {
      if (k === "required" && Array.isArray(v)) {
        if (top) out.required = v.flatMap((name) => renamed(String(name)) ?? [])
      } else if (k === "properties" && isNode(v)) {
        out.properties = Object.fromEntries(
          Object.entries(v).flatMap(([name, field]): Array<[string, unknown]> => {
            const as = renamed(name)
            return as === null ? [] : as === "age" ? [["age", ageSchema]] : [[name, walk(field, false)]]
          })
        )
      } else out[k] = walk(v, top && (k === "anyOf" || k === "oneOf"))
    }
    return out
  }
  return walk(schema, true) as Node
}
