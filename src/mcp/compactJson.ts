import { Fact } from "../domain/fact.js"
import { Task } from "../domain/tasks.js"
import type { Page } from "../tools/render/page.js"
import { taskLine } from "../tools/render/tasks.js"

type Node = Record<string, unknown>

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v)

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * Keys whose value is a moment: an ISO stamp in the full form, said as the text says it here. A
 * briefing's `as_of` and `since` stay stamps: a client passes them back as `since`.
 */
const momentKeys = new Set(["at", "last_activity"])
/** Keys whose value is a moment ahead, said as the time left. */
const aheadKeys = new Set(["lease_expires_at"])

const factKeys = new Set(Object.keys(Fact.fields))
const taskKeys = new Set(Object.keys(Task.fields))

/** Nothing but the fields of `keys`, and `marker` among them: a Fact told from a procedure or a hit. */
const isShaped = (node: Node, keys: ReadonlySet<string>, marker: string): boolean =>
  typeof node[marker] === "string" && Object.keys(node).every((k) => keys.has(k))
const isFact = (node: Node) => isShaped(node, factKeys, "content")
const isTask = (node: Node) => isShaped(node, taskKeys, "title")

/** A task as the text writes it, then its detail (which the text gives on a line of its own). */
const taskText = (t: Task, page: Page): string => `${taskLine(t, page)}${t.detail === null ? "" : `: ${t.detail}`}`

/**
 * A fact as the text writes it, `<id>[ [status]] <writer> <age>[ on <parent>[, ...]]: <text>`, without
 * the parent where the item above already names it (a conflict's children, a chain's later items).
 */
const factLine = (f: Fact, page: Page, parentSaid: boolean): string => {
  const all = f.builds_on ?? (f.parent_id === null ? [] : [f.parent_id])
  // Where the item above is the first parent, only a merge's other parents are left to say.
  return page.line(f, parentSaid ? all.slice(1) : all, f.content)
}

/** Fields the text never shows: the session, and a ranking's score (the order says it). */
const unsaid = new Set(["session_id", "score"])

/** What an item leaves out (absent is none, false, 0, empty or active); the reply's own fields all stay (a `task: null` says there was none). */
const leftOut = (key: string, value: unknown, top: boolean): boolean =>
  unsaid.has(key) ||
  (!top && (value === null || value === false || value === 0 || (key === "status" && value === "active") ||
    (Array.isArray(value) && value.length === 0)))

/**
 * The compact form of a tool's structuredContent, for clients that hand the model the JSON instead
 * of the text (Claude Code): the same reply with what the text leaves unsaid left out too, and each
 * fact one line as the text writes it (a fact's keys cost the model more than its words). Every id
 * is the reply's short id (inputs take them back); every stamp is said as the text says it
 * (`created_at` as `age`, a lease's end as "in 4m"); inside an item a null, a false, an empty list
 * and an `active` status are left out (the reply's own fields all stay), and everywhere a ranking's
 * `score`; a conflict's children and a chain's items after the first leave out their parent (the
 * item above). Whole ids and stamps: RELAY_STRUCTURED_CONTENT=full.
 */
export const compactReply = (encoded: Node, page: Page): Node => {
  const walk = (value: unknown, key: string, top: boolean, parentSaid = false): unknown => {
    if (Array.isArray(value)) {
      return value.map((v, i) => walk(v, "", false, key === "children" || (key === "chain" && i > 0)))
    }
    if (typeof value === "string") return uuid.test(value) ? page.id(value) : value
    if (!isNode(value)) return value
    // The encoded Fact is its Type: strings and a null parent both ways.
    if (isFact(value)) return factLine(value as unknown as Fact, page, parentSaid)
    // The encoded Task is its Type: its stamps are ISO strings both ways.
    if (isTask(value)) return taskText(value as unknown as Task, page)
    const out: Node = {}
    for (const [k, v] of Object.entries(value)) {
      if (leftOut(k, v, top)) continue
      if (k === "created_at" && typeof v === "string") out.age = page.when(v)
      else if (momentKeys.has(k) && typeof v === "string") out[k] = page.when(v)
      else if (aheadKeys.has(k) && typeof v === "string") out[k] = page.left(v)
      else out[k] = walk(v, k, false)
    }
    return out
  }
  return walk(encoded, "", true) as Node
}

const ageSchema = { type: "string", description: "How long ago (\"3h ago\"), as the text says" }
const factSchema = { type: "string", description: "<id>[ [status]] <writer> <age>[ on <parent>]: <text>" }

const taskSchema = {
  type: "string",
  description: "<id> [status] \"<title>\" by <writer> <age>[; holder, tries, last finish, about <facts>][: <detail>]"
}

/** Whether a listed object schema has exactly the fields of `keys`. */
const hasFields = (node: Node, keys: ReadonlySet<string>): boolean =>
  isNode(node.properties) && Object.keys(node.properties).length === keys.size &&
  Object.keys(node.properties).every((k) => keys.has(k))

const renamed = (name: string): string | null => unsaid.has(name) ? null : name === "created_at" ? "age" : name

/**
 * The outputSchema of the compact form, from the full one: a fact or a task is a string (its line),
 * `created_at` becomes `age`, `session_id` and `score` go, and below the reply's own fields nothing
 * is required (items leave out nulls, falses, zeros and defaults). The reply's own fields (a
 * top-level schema's, each branch of its union) stay required.
 */
export const compactSchema = (schema: Node): Node => {
  const walk = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, top))
    if (!isNode(node)) return node
    if (hasFields(node, factKeys)) return factSchema
    if (hasFields(node, taskKeys)) return taskSchema
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
    // A nullable fact or task (`type: ["object", "null"]` over its branches) is now a nullable string.
    if (Array.isArray(out.type) && Array.isArray(out.anyOf)) {
      out.type = [...new Set(out.anyOf.flatMap((b) => isNode(b) && b.type !== undefined ? [b.type].flat() : []))]
    }
    return out
  }
  return walk(schema, true) as Node
}
