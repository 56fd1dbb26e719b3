import { Effect } from "effect"
import { InvalidInput, noFactWithId } from "../domain/errors.js"
import { byRate } from "../domain/model/procedures.js"
import { currentBudget, cursorOf, fitting, isWhole, placeCursor } from "../domain/paging.js"
import {
  candidatesMax,
  FindProcedureInput,
  FindProcedureOutput,
  notAProcedure,
  RunsCursor
} from "../domain/procedures.js"
import { FactStore } from "../services/FactStore.js"
import { renderFindProcedure } from "./render/procedures.js"
import { noStrongMatch } from "./search.js"
import { defineTool, readOnly } from "./Tool.js"

/** Runs a page of one procedure's record shows, newest first. */
const runsShown = 20

/**
 * A candidate's place: Laplace rate first (higher first, compared in whole numbers), then the match
 * (its tier, 0 every-word before 1 any-word; higher score; newer).
 */
interface Place {
  readonly success: number
  readonly failure: number
  readonly tier: 0 | 1
  readonly score: number
  readonly node: number
}

interface Candidate extends Place {
  readonly id: string
}

const order = (x: Place, y: Place): number => byRate(x, y) || x.tier - y.tier || y.score - x.score || y.node - x.node

const isCount = (v: string | number): v is number => isWhole(v) && v >= 0

/** On the wire a place is the rate's numerator and denominator (s + 1, n + 2), then the match's tier, score and node. */
const PlaceWire = placeCursor({
  rateOver: isCount,
  rateUnder: isCount,
  tier: (v): v is 0 | 1 => v === 0 || v === 1,
  score: (v): v is number => typeof v === "number",
  node: isCount
})

/** relay_find_procedure's cursor over a goal's candidates: a place in the order, not a candidate that must still exist. */
export const CandidatesCursor = cursorOf(
  (key): Place | null => {
    const at = PlaceWire.read(key)
    if (at === null || at.rateOver < 1 || at.rateUnder < at.rateOver + 1) return null
    const { rateOver, rateUnder, ...match } = at
    return { success: rateOver - 1, failure: rateUnder - rateOver - 1, ...match }
  },
  (c: Place) =>
    PlaceWire.wire({
      rateOver: c.success + 1,
      rateUnder: c.success + c.failure + 2,
      tier: c.tier,
      score: c.score,
      node: c.node
    })
)

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
      const before = yield* RunsCursor.decode(input.cursor)
      const found = (yield* store.procedures([id])).get(id)
      if (found === undefined) {
        return yield* ((yield* store.kinds([id])).has(id)
          ? notAProcedure("procedure_id", id)
          : noFactWithId("procedure_id", id))
      }
      const total = found.runs.success + found.runs.failure
      const { next, runs } = yield* store.runs(id, total, before?.place ?? null, runsShown)
      return { procedures: [found], runs, next_cursor: next === null ? null : RunsCursor.encode({ place: next }) }
    }
    const after = yield* CandidatesCursor.decode(input.cursor)
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
        tier: r.key.tier === "any" ? 1 : 0,
        score: r.key.score,
        node: r.key.node
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
    return { procedures: shown, next_cursor: more ? CandidatesCursor.encode(last) : null }
  })
})
