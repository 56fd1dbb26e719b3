import { Effect, Layer, Ref } from "effect"
import { chainBudgetBytes, impactNumbers, staleDefault } from "../../domain/chainPaging.js"
import { type ImpactKey, impactOrder } from "../../domain/descendants.js"
import { InvalidInput, InvalidResolution, noFactWithId } from "../../domain/errors.js"
import type { Dependent, Fact, StoredKind } from "../../domain/fact.js"
import * as Model from "../../domain/model/index.js"
import { currentBudget, leftOutCap, page } from "../../domain/paging.js"
import { requestIdMessage } from "../../domain/requestId.js"
import {
  buildsOnMessage,
  compatibleMessage,
  confirmMessage,
  mergeDepthCap,
  resolutionMessage
} from "../../domain/rules.js"
import { toIso } from "../../domain/time.js"
import {
  type ConflictsRequest,
  FactStore,
  type FactStoreShape,
  type NewFact,
  type Page,
  type Saved
} from "../../services/FactStore.js"
import { stampNow } from "../database/stampNow.js"
import { type ConflictItem, conflictsPage } from "./conflicts.js"
import { decisionsPerFact, lostTo } from "./decisionSides.js"

/**
 * A FactStore in memory, on the pure model (src/domain/model): every answer is the model's rule
 * applied to a Ref of the graph, and the paging is the live store's own (domain/paging.ts,
 * conflictsPage), so tools, rendering, paging and policies run without a database in
 * milliseconds. test/rules/testLayer.test.ts holds it to the live store on generated sequences.
 * What the model does not define is not written a second time here: those operations die naming
 * themselves (see `unmodelled`), so a test that reaches one goes to the real database instead.
 * Stamps come from Effect's Clock (TestClock drives them) through the model's nextStamp.
 */

interface TestFact extends Model.ModelFact {
  readonly writtenBy: string
  readonly sessionId: string
  readonly stored: StoredKind | null
}
interface TestDecision extends Model.ModelResolution {
  readonly createdAt: number
  readonly resolvedBy: string
  readonly reason: string
  readonly callId: string
}
interface TestCompatible extends Model.ModelCompatible {
  readonly createdAt: number
  readonly resolvedBy: string
  readonly reason: string
  readonly callId: string
}
interface TestRetraction extends Model.ModelRetraction {
  readonly retractedBy: string
  readonly reason: string
  readonly callId: string
}
interface TestConfirmation extends Model.ModelConfirmation {
  readonly confirmedBy: string
  readonly reason: string
  readonly callId: string
}

/** The memory: the model's graph with what the replies show besides, the last stamp and the names. */
export interface TestMemory {
  readonly facts: ReadonlyArray<TestFact>
  readonly supersedes: ReadonlyArray<TestDecision>
  readonly compatible: ReadonlyArray<TestCompatible>
  readonly retractions: ReadonlyArray<TestRetraction>
  readonly confirmations: ReadonlyArray<TestConfirmation>
  readonly last: number | null
  readonly names: ReadonlyMap<string, string>
}

const empty: TestMemory = {
  facts: [],
  supersedes: [],
  compatible: [],
  retractions: [],
  confirmations: [],
  last: null,
  names: new Map()
}

/** An operation the pure model has no rule for: a defect that names it. */
const unmodelled = (operation: string) =>
  Effect.dieMessage(`FactStoreTest: ${operation} is not in the pure model (src/domain/model); test it on FalkorDB`)

/** The stored kind as the fork rule reads it: every kind but choice forks as a detail does. */
const modelKind = (k: StoredKind | null | undefined): Model.ModelKind | null =>
  k === null || k === undefined ? null : k === "choice" ? "choice" : "detail"

/**
 * A fact as the tools show it, with its status in `graph` (the memory, or as it stood at a time).
 * Listed under a parent (a conflict's child, a save's sibling) it names that parent and no
 * builds_on (docs/contract.md); `chain`: as a context page shows it, which names only the first
 * parent (layers/factStore/context.ts reads no builds_on).
 */
const factOf = (graph: TestMemory, id: string, listedUnder?: string, chain = false): Fact => {
  const f = graph.facts.find((x) => x.id === id)!
  const parents = Model.parentsOf(f)
  return {
    id: f.id,
    content: f.content,
    written_by: f.writtenBy,
    session_id: f.sessionId,
    created_at: toIso(f.createdAt),
    parent_id: listedUnder ?? f.parentId,
    ...(parents.length > 1 && listedUnder === undefined && !chain ? { builds_on: parents } : {}),
    status: Model.status(graph, id)
  }
}

const asOfMemory = (m: TestMemory, t: number | null): TestMemory =>
  t === null ? m : { ...m, ...(Model.asOf(m, t) as Omit<TestMemory, "last" | "names">) }

const has = (m: TestMemory, id: string) => m.facts.some((f) => f.id === id)

const stampOfFact = (m: TestMemory, id: string) => m.facts.find((f) => f.id === id)!.createdAt

/** The impact page of `id` (its dependents by distance then age), keyed as the live cursor is. */
const impactPage = (
  m: TestMemory,
  id: string,
  limit: number,
  cursor: ImpactKey | null,
  budget: number
): Page<Dependent> => {
  const index = new Map(m.facts.map((f, i) => [f.id, i]))
  const keyOf = (d: { id: string; distance: number }): ImpactKey => ({
    distance: d.distance,
    createdAt: stampOfFact(m, d.id),
    node: index.get(d.id)!
  })
  const all = Model.impact(m, id).filter((d) => cursor === null || impactOrder(keyOf(d), cursor) > 0)
  const wanted = all.slice(0, limit + 1).map((d) => ({ fact: factOf(m, d.id), distance: d.distance, key: keyOf(d) }))
  const { items, next_cursor } = page(wanted, limit, (d) => impactNumbers(d.key), budget)
  return { items: items.map(({ distance, fact }) => ({ fact, distance })), next_cursor }
}

/** The open conflicts as the live read returns them (ConflictItem), from `request.after` on. */
const conflictItems = (m: TestMemory, request: ConflictsRequest, snap: number): Array<ConflictItem> => {
  const children = request.children ?? 20
  const at = asOfMemory(m, snap)
  const members = request.thread == null ? null : Model.thread(at, request.thread)
  const after = request.after
  const afterKeyStamp = after?.key ?? Number.MAX_SAFE_INTEGER
  const afterParent = after?.parent ?? Number.MAX_SAFE_INTEGER
  const afterChild = after?.child ?? 0
  return Model.openConflicts(at)
    .filter((c) => members === null || members.has(c.parent))
    .map((c) => ({ c, key: stampOfFact(at, c.children[0]!), parentKey: stampOfFact(at, c.parent) }))
    .filter(({ key, parentKey }) =>
      key < afterKeyStamp ||
      (key === afterKeyStamp && (parentKey < afterParent || (parentKey === afterParent && afterChild > 0)))
    )
    .slice(0, request.limit + 1)
    .map(({ c, key, parentKey }) => {
      const rest = c.children.filter((k) =>
        key < afterKeyStamp || parentKey < afterParent || stampOfFact(at, k) < afterChild
      )
      const shown = rest.slice(0, children)
      return {
        conflict: {
          parent: factOf(at, c.parent),
          children: shown.map((k) => factOf(at, k, c.parent)),
          children_total: c.children.length
        },
        snap,
        key,
        parentKey,
        child: rest.length > children ? stampOfFact(at, shown[shown.length - 1]!) : 0
      }
    })
}

export const makeFactStoreTest = Effect.gen(function*() {
  const memory = yield* Ref.make<TestMemory>(empty)
  const stamp = (m: TestMemory) => Effect.map(stampNow, (now) => Model.nextStamp(m.last, now))

  const save = (input: NewFact) =>
    Effect.gen(function*() {
      if (input.revises != null) return yield* unmodelled("save with supersedes (a revision)")
      const m = yield* Ref.get(memory)
      if (has(m, input.id)) return yield* unmodelled("save of an id already stored (a retried request_id)")
      const parentId = input.parentId
      const also = parentId === null ? [] : [...new Set(input.alsoOn ?? [])].filter((p) => p !== parentId)
      const parents = parentId === null ? [] : [parentId, ...also]
      const contradicts = [...new Set(input.contradicts ?? [])].sort()
      for (const c of contradicts) {
        const other = m.facts.find((f) => f.id === c)
        if (other === undefined) return yield* noFactWithId("contradicts", c)
        if (!Model.parentsOf(other).some((p) => parents.includes(p))) {
          return yield* new InvalidInput({
            message: `contradicts: ${c} is not a sibling of this fact (no parent in common); ` +
              "only siblings are in conflict: to replace a fact elsewhere use supersedes and reason"
          })
        }
      }
      if (parentId !== null && !has(m, parentId)) {
        return yield* noFactWithId(also.length > 0 ? "builds_on" : "parent_fact_id", parentId)
      }
      const missing = also.find((p) => !has(m, p))
      if (missing !== undefined) return yield* noFactWithId("builds_on", missing)
      if (also.length > 0 && Model.mergeDepth(m, parents) > mergeDepthCap) {
        return yield* new InvalidInput({ message: buildsOnMessage.too_deep })
      }
      const kind = modelKind(input.kind)
      const first = Model.saveOutcome(m, parentId, input.content, kind, null, contradicts)
      const under = Model.saveOutcomes(m, also, input.content, kind, null, contradicts)
      const createdAt = yield* stamp(m)
      const fact: TestFact = {
        id: input.id,
        content: input.content,
        parentId,
        ...(also.length > 0 ? { alsoBuildsOn: also } : {}),
        createdAt,
        writtenBy: input.writtenBy,
        sessionId: input.sessionId,
        kind,
        stored: input.kind ?? null,
        ...(contradicts.length > 0 ? { contradicts } : {})
      }
      const next: TestMemory = { ...m, facts: [...m.facts, fact], last: createdAt }
      yield* Ref.set(memory, next)
      const listed = (ids: ReadonlyArray<string>, parent: string) => ids.map((id) => factOf(next, id, parent))
      const saved: Saved = {
        fact: factOf(next, input.id),
        forkSiblings: parentId === null ? [] : listed(first.forkSiblings, parentId),
        siblingsTotal: first.siblingsTotal,
        duplicateOf: first.duplicateOf === null ? null : factOf(next, first.duplicateOf, parentId!),
        revision: null,
        alsoUnder: under.filter((u) => u.siblingsTotal > 0 || u.duplicateOf !== null).map((u) => ({
          parentId: u.parent,
          forkSiblings: listed(u.forkSiblings, u.parent),
          siblingsTotal: u.siblingsTotal,
          duplicateOf: u.duplicateOf === null ? null : factOf(next, u.duplicateOf, u.parent)
        })),
        compared: parentId === null ? [] : listed(first.compared, parentId),
        comparedTotal: first.comparedTotal,
        // Near-duplicates in other threads (links.ts) rank by full-text terms: not a rule of the model.
        links: []
      }
      return saved
    })

  const staleOf = (m: TestMemory, id: string, limit: number | undefined) =>
    Effect.map(currentBudget(chainBudgetBytes), (budget) => impactPage(m, id, limit ?? staleDefault, null, budget))

  const store: FactStoreShape = {
    save,
    context: (id, request, asOf) =>
      Effect.gen(function*() {
        const at = asOfMemory(yield* Ref.get(memory), asOf ?? null)
        if (!has(at, id)) return yield* noFactWithId("fact_id", id, asOf == null ? "" : " at as_of")
        const before = request.cursor?.[0] ?? null
        const newestFirst = Model.context(at, id).reverse()
          .filter((f) => before === null || stampOfFact(at, f) < before)
          .slice(0, request.limit + 1)
          .map((f) => factOf(at, f, undefined, true))
        const { items, next_cursor } = page(
          newestFirst,
          request.limit,
          (f) => [Date.parse(f.created_at)],
          yield* currentBudget(chainBudgetBytes)
        )
        return { items: [...items].reverse(), next_cursor }
      }),
    lostDecisions: (ids, asOf) =>
      Effect.map(Ref.get(memory), (m) =>
        ids.flatMap((id) =>
          m.supersedes
            .filter((d) => d.loser === id && (asOf === null || d.createdAt <= asOf))
            .sort((x, y) => x.createdAt - y.createdAt)
            .slice(0, decisionsPerFact)
            .map((d) => ({
              fact_id: id,
              ...lostTo({
                id: d.winner,
                content: m.facts.find((f) => f.id === d.winner)!.content,
                reason: d.reason,
                resolved_by: d.resolvedBy,
                created_at: toIso(d.createdAt)
              })
            }))
        )),
    impact: (id, request) =>
      Effect.gen(function*() {
        if (request.cursor !== null && "revision" in request.cursor) {
          return yield* unmodelled("impact through a revision's stale cursor")
        }
        const m = yield* Ref.get(memory)
        if (!has(m, id)) return yield* noFactWithId("fact_id", id)
        return impactPage(m, id, request.limit, request.cursor, yield* currentBudget(chainBudgetBytes))
      }),
    currentState: (options) =>
      Effect.gen(function*() {
        const now = yield* Ref.get(memory)
        const asOf = options.asOf ?? null
        const at = asOfMemory(now, asOf)
        const members = options.thread == null ? null : Model.thread(at, options.thread)
        if (members !== null && members.size === 0) return yield* noFactWithId("thread", options.thread!)
        const before = options.before ?? Number.MAX_SAFE_INTEGER
        const statuses = options.statuses ?? null
        // Every filter but the status: the span a status filter leaves facts out of.
        const window = [...at.facts]
          .sort((x, y) => y.createdAt - x.createdAt)
          .filter((f) =>
            f.createdAt < before &&
            (members === null || members.has(f.id)) &&
            (options.sessionId === null || f.sessionId === options.sessionId) &&
            (options.writtenBy == null || f.writtenBy === options.writtenBy)
          )
        const matching = window
          .map((f) => factOf(at, f.id))
          .filter((f) => statuses === null || statuses.includes(f.status))
          .slice(0, options.limit + 1)
        const found = page(matching, options.limit, (f) => [Date.parse(f.created_at)], yield* currentBudget())
        if (statuses === null) return found
        const last = found.next_cursor === null ? undefined : found.items.at(-1)
        const from = last === undefined ? -Infinity : Date.parse(last.created_at)
        const span = Math.min(window.filter((f) => f.createdAt >= from).length, leftOutCap + found.items.length)
        return { ...found, left_out: Math.max(0, span - found.items.length) }
      }),
    openConflicts: (request) =>
      Effect.gen(function*() {
        const m = yield* Ref.get(memory)
        const asOf = request.asOf ?? null
        if (request.thread != null && !has(asOfMemory(m, request.after?.snap ?? asOf), request.thread)) {
          return yield* noFactWithId("thread", request.thread)
        }
        if (m.last === null) return { conflicts: [], next: null }
        const snap = request.after?.snap ?? (asOf !== null && asOf < m.last ? asOf : m.last)
        return conflictsPage(conflictItems(m, request, snap), request, yield* currentBudget())
      }),
    resolve: (r) =>
      Effect.gen(function*() {
        const m = yield* Ref.get(memory)
        const rule = Model.resolutionViolation(m, r.winnerId, r.loserId)
        if (rule === "winner_not_found") return yield* noFactWithId("winner_fact_id", r.winnerId)
        if (rule === "loser_not_found") return yield* noFactWithId("loser_fact_id", r.loserId)
        if (rule !== undefined) return yield* new InvalidResolution({ message: resolutionMessage[rule] })
        const had = m.supersedes.find((d) => d.winner === r.winnerId && d.loser === r.loserId)
        if (had !== undefined && had.callId === r.callId && had.reason !== r.reason) {
          return yield* new InvalidInput({ message: requestIdMessage.resolve })
        }
        let next = m
        if (had === undefined) {
          const createdAt = yield* stamp(m)
          const decision = {
            winner: r.winnerId,
            loser: r.loserId,
            createdAt,
            resolvedBy: r.resolvedBy,
            reason: r.reason,
            callId: r.callId
          }
          next = { ...m, supersedes: [...m.supersedes, decision], last: createdAt }
          yield* Ref.set(memory, next)
        }
        const record = had ?? next.supersedes.at(-1)!
        const stale = yield* staleOf(next, r.loserId, r.staleLimit)
        return {
          winner: factOf(next, r.winnerId),
          loser: factOf(next, r.loserId),
          reason: record.reason,
          resolvedBy: record.resolvedBy,
          createdAt: record.createdAt,
          alreadyResolved: had !== undefined && had.callId !== r.callId,
          stale: stale.items,
          staleNextCursor: stale.next_cursor
        }
      }),
    compatible: (c) =>
      Effect.gen(function*() {
        if (new Set(c.factIds).size < c.factIds.length) {
          return yield* new InvalidResolution({ message: compatibleMessage.same_fact })
        }
        const m = yield* Ref.get(memory)
        const missing = c.factIds.find((id) => !has(m, id))
        if (missing !== undefined) return yield* noFactWithId("fact_ids", missing)
        const pairs = c.factIds.flatMap((x, i) => c.factIds.slice(i + 1).map((y) => [x, y] as const))
        for (const [x, y] of pairs) {
          const rule = Model.compatibleViolation(m, x, y)
          if (rule !== undefined && rule !== "fact_not_found") {
            return yield* new InvalidResolution({ message: compatibleMessage[rule] })
          }
        }
        const recordOf = (g: TestMemory, x: string, y: string) =>
          g.compatible.find((r) => Model.pairKey(r.a, r.b) === Model.pairKey(x, y))
        if (pairs.some(([x, y]) => recordOf(m, x, y)?.callId === c.callId && recordOf(m, x, y)?.reason !== c.reason)) {
          return yield* new InvalidInput({ message: requestIdMessage.resolve })
        }
        let next = m
        const made: Array<TestCompatible> = []
        for (const [x, y] of pairs) {
          const had = recordOf(next, x, y)
          if (had !== undefined) {
            if (had.callId === c.callId) made.push(had)
            continue
          }
          const createdAt = yield* stamp(next)
          const [a, b] = x < y ? [x, y] : [y, x]
          const record = { a, b, createdAt, reason: c.reason, resolvedBy: c.resolvedBy, callId: c.callId }
          made.push(record)
          next = { ...next, compatible: [...next.compatible, record], last: createdAt }
        }
        yield* Ref.set(memory, next)
        const shown = made[0] ?? recordOf(next, pairs[0]![0], pairs[0]![1])!
        return {
          facts: c.factIds.map((id) => factOf(next, id)),
          reason: shown.reason,
          resolvedBy: shown.resolvedBy,
          createdAt: shown.createdAt,
          alreadyResolved: made.length === 0
        }
      }),
    retract: (r) =>
      Effect.gen(function*() {
        const m = yield* Ref.get(memory)
        if (!has(m, r.factId)) return yield* noFactWithId("fact_id", r.factId)
        const had = m.retractions.find((x) => x.fact === r.factId)
        if (had !== undefined && had.callId === r.callId && had.reason !== r.reason) {
          return yield* new InvalidInput({ message: requestIdMessage.retract })
        }
        let next = m
        if (had === undefined) {
          const createdAt = yield* stamp(m)
          const record = { fact: r.factId, createdAt, retractedBy: r.retractedBy, reason: r.reason, callId: r.callId }
          next = { ...m, retractions: [...m.retractions, record], last: createdAt }
          yield* Ref.set(memory, next)
        }
        const record = had ?? next.retractions.at(-1)!
        const stale = yield* staleOf(next, r.factId, r.staleLimit)
        return {
          id: record.callId,
          fact: factOf(next, r.factId),
          reason: record.reason,
          retractedBy: record.retractedBy,
          createdAt: record.createdAt,
          alreadyRetracted: had !== undefined && had.callId !== r.callId,
          stale: stale.items,
          staleNextCursor: stale.next_cursor
        }
      }),
    confirm: (c) =>
      Effect.gen(function*() {
        const m = yield* Ref.get(memory)
        const outcome = Model.confirmOutcome(m, c.factId)
        if (typeof outcome === "object" && "refused" in outcome) {
          return yield* outcome.refused === "fact_not_found"
            ? noFactWithId("fact_id", c.factId)
            : new InvalidResolution({ message: confirmMessage[outcome.refused] })
        }
        let next = m
        let refreshed = 0
        if (outcome === "confirms") {
          const createdAt = yield* stamp(m)
          const record = { fact: c.factId, createdAt, confirmedBy: c.confirmedBy, reason: c.reason, callId: c.callId }
          next = { ...m, confirmations: [...m.confirmations, record], last: createdAt }
          yield* Ref.set(memory, next)
          refreshed = m.facts.filter((f) =>
            f.id !== c.factId && Model.status(m, f.id) === "stale" && Model.status(next, f.id) !== "stale"
          ).length
        }
        const record = [...next.confirmations].reverse().find((x) =>
          x.fact === c.factId
        )!
        return {
          id: record.callId,
          fact: factOf(next, c.factId),
          reason: record.reason,
          confirmedBy: record.confirmedBy,
          createdAt: record.createdAt,
          alreadyConfirmed: outcome !== "confirms",
          refreshed
        }
      }),
    shownNames: (names, record) =>
      Effect.gen(function*() {
        const m = yield* Ref.get(memory)
        const first = record ? Model.recordNames(m.names, names) : m.names
        if (record) yield* Ref.set(memory, { ...m, names: first })
        return new Map(names.map((n) => [n, Model.shownName(first, n)]))
      }),
    saveMany: () => unmodelled("saveMany"),
    briefing: () => unmodelled("briefing"),
    important: () => unmodelled("important"),
    search: () => unmodelled("search"),
    similar: () => unmodelled("similar"),
    matchCount: () => unmodelled("matchCount"),
    idsStartingWith: () => unmodelled("idsStartingWith"),
    clusters: () => unmodelled("clusters"),
    thread: () => unmodelled("thread"),
    timeline: () => unmodelled("timeline"),
    recordsAfter: () => unmodelled("recordsAfter"),
    procedures: () => unmodelled("procedures"),
    kinds: () => unmodelled("kinds"),
    writeSteps: () => unmodelled("writeSteps"),
    recordRun: () => unmodelled("recordRun"),
    procedureBriefing: () => unmodelled("procedureBriefing"),
    runs: () => unmodelled("runs")
  }
  return store
})

/** The in-memory FactStore, a fresh memory each time the layer is built. */
export const FactStoreTest = Layer.effect(FactStore, makeFactStoreTest)
