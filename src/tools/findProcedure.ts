import { Effect } from "effect"
import { InvalidInput, noFactWithId } from "../domain/errors.js"
import { byRate } from "../domain/model/procedures.js"
import { currentBudget, type CursorKey, cursorNumbers, encodeCursor, fitting } from "../domain/paging.js"
import { candidatesMax, FindProcedureInput, FindProcedureOutput, notAProcedure } from "../domain/procedures.js"
import { FactStore } from "../services/FactStore.js"
import { renderFindProcedure } from "./render/procedures.js"
import { noStrongMatch } from "./search.js"
import { defineTool, readOnly } from "./Tool.js"

/** Runs a page of one procedure's record shows, newest first. */
const runsShown = 20

const badCursor = new InvalidInput({ message: "cursor: must be a next_cursor returned by this tool" })

/**
 * A candidate's place: Laplace rate first (higher first, compared in whole numbers), then the match
 * (every-word before any-word, higher score, newer). Its cursor key is [s + 1, n + 2, tier, score, node].
 */
interface Candidate {
  readonly id: string
  readonly success: number
  readonly failure: number
  readonly tier: number
  readonly score: number
  readonly node: number
}

const order = (x: Candidate, y: Candidate): number =>
  byRate(x, y) || x.tier - y.tier || y.score - x.score || y.node - x.node

const keyOf = (c: Candidate): CursorKey => [c.success + 1, c.success + c.failure + 2, c.tier, c.score, c.node]

/** The candidate the key names (a position in the order, not a candidate that must still exist). */
const fromKey = (key: CursorKey): Candidate | null => {
  const [s1, n2, tier, score, node] = key
  const whole = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0
  if (key.length !== 5 || !whole(s1) || !whole(n2) || !whole(tier) || !whole(node) || typeof score !== "number") {
    return null
  }
  if (s1 < 1 || n2 < s1 + 1) return null
  return { id: "", success: s1 - 1, failure: n2 - s1 - 1, tier, score, node }
}

export const findProcedure = defineTool({
  name: "relay_find_procedure",
  description: "Procedures for a goal, best record first",
  annotations: readOnly("Find a procedure"),
  // Accepted, not advertised (tokens): three procedures are what a model reads; one procedure's
  // run record is for people and scripts (the studio, npm run) more than for a model.
  unlisted: ["limit", "procedure_id"],
  input: FindProcedureInput,
  output: FindProcedureOutput,
  render: renderFindProcedure,
  handler: Effect.fn("relay/tools/relay_find_procedure")(function*(input) {
    if ((input.goal === undefined) === (input.procedure_id === undefined)) {
      return yield* new InvalidInput({ message: "goal: give a goal or a procedure_id, one of them" })
    }
    const store = yield* FactStore
    if (input.procedure_id !== undefined) {
      const id = input.procedure_id
      const [before] = (yield* cursorNumbers(input.cursor, 1)) ?? [null]
      const found = (yield* store.procedures([id])).get(id)
      if (found === undefined) {
        return yield* ((yield* store.kinds([id])).has(id)
          ? notAProcedure("procedure_id", id)
          : noFactWithId("procedure_id", id))
      }
      const total = found.runs.success + found.runs.failure
      const { next, runs } = yield* store.runs(id, total, before ?? null, runsShown)
      return { procedures: [found], runs, next_cursor: next === null ? null : encodeCursor([next]) }
    }
    const after = input.cursor === undefined ? null : fromKey(input.cursor)
    if (input.cursor !== undefined && after === null) return yield* badCursor
    const rows = yield* store.search({
      query: input.goal!,
      kind: "procedure",
      statuses: ["active", "stale"],
      writtenBy: null,
      sessionId: null,
      since: null,
      until: null,
      take: candidatesMax,
      after: null
    })
    const strong = rows.filter((r) => r.hit.weak !== true)
    if (strong.length === 0) {
      return { procedures: [], ...(rows.length > 0 ? { note: noStrongMatch } : {}), next_cursor: null }
    }
    const counts = yield* store.kinds(strong.map((r) => r.hit.fact.id))
    const ranked = strong.map((r): Candidate => {
      const c = counts.get(r.hit.fact.id)
      return {
        id: r.hit.fact.id,
        success: c?.success ?? 0,
        failure: c?.failure ?? 0,
        tier: r.key.length === 3 ? 1 : 0,
        score: r.key[0],
        node: r.key[1]
      }
    }).sort(order).filter((c) => after === null || order(after, c) < 0)
    const pageIds = ranked.slice(0, input.limit)
    const records = yield* store.procedures(pageIds.map((c) => c.id))
    const procedures = pageIds.flatMap((c) => {
      const p = records.get(c.id)
      return p === undefined ? [] : [p]
    })
    const shown = procedures.slice(0, fitting(procedures, yield* currentBudget()))
    const last = pageIds[shown.length - 1]
    const more = shown.length < ranked.length && last !== undefined
    return { procedures: shown, next_cursor: more ? encodeCursor(keyOf(last)) : null }
  })
})
