import { Cause, Effect, Layer, Option, Ref } from "effect"
import { FactStore, type FactStoreShape, type ProcedureOps } from "../../services/FactStore.js"
import { GraphDatabase } from "../../services/GraphDatabase.js"
import { stampNow } from "../database/stampNow.js"
import { procedureBriefing } from "../procedures/briefing.js"
import { factKinds, procedureRecords } from "../procedures/records.js"
import { recordRun, runsPage } from "../procedures/runs.js"
import { writeSteps } from "../procedures/steps.js"
import { recordsAfter } from "../transfer/exportRecords.js"
import { makeShownNames } from "./agentNames.js"
import { briefing } from "./briefing.js"
import { graphCapacity } from "./capacity.js"
import { clusterPage, makeClusterFloor } from "./clusterPage.js"
import { compatible } from "./compatible.js"
import { confirm } from "./confirm.js"
import { openConflicts } from "./conflicts.js"
import { context } from "./context.js"
import { currentState } from "./currentState.js"
import { embeddingSettings, makeEmbedder } from "./embeddings.js"
import { makeGroupCommit, makeReadBatcher } from "./groupCommit.js"
import { impact } from "./impact.js"
import { important } from "./importantPage.js"
import { linkReadForms } from "./links.js"
import { lostDecisions } from "./lostDecisions.js"
import { matchPrefixes } from "./prefixes.js"
import { rankDaemon } from "./rankGenerations.js"
import { resolve } from "./resolve.js"
import { retract } from "./retract.js"
import { save, saveBatchForms } from "./saveFact.js"
import { saveMany } from "./saveMany.js"
import { matchCount, search, vectorSearch } from "./search.js"
import { thread } from "./thread.js"
import { timeline } from "./timeline.js"
import { backfillDaemon, ensureVectorIndex, makeVectors } from "./vectors.js"

const now = stampNow

/** Made once: the batch forms of the save statements (saveBatch.ts). */
const saveForms = saveBatchForms()
const linkForms = linkReadForms()

/** Procedures (issue 44): the same graph and clock as the facts they are. */
const procedureOps = (db: GraphDatabase["Type"]): ProcedureOps => ({
  procedures: (ids) => procedureRecords(db, ids),
  kinds: (ids) => factKinds(db, ids),
  writeSteps: (w) => Effect.asVoid(writeSteps(db, w)),
  recordRun: (r) => now.pipe(Effect.flatMap((now) => recordRun(db, now, r))),
  runs: (id, total, before, limit) => runsPage(db, id, total, before, limit),
  procedureBriefing: (r) => procedureBriefing(db, r)
})

/** FactStore on FalkorDB: each operation is one query file under ./factStore; saves go through one writer (groupCommit.ts) for the store's life. */
export const makeFactStore = Effect.gen(function*() {
  const db = yield* GraphDatabase
  const capacity = yield* graphCapacity
  const floor = yield* makeClusterFloor
  // What the store learns of its graph as it reads (mergeGate.ts, currentState.ts): the store's own.
  const gate = yield* Ref.make(false)
  const spacing = yield* Ref.make<number | undefined>(undefined)
  const shownNames = yield* makeShownNames(db)
  const commit = yield* makeGroupCommit(db, saveForms)
  // The suggested-links reads of concurrent saves, batched the same way (links.ts).
  const reads = yield* makeReadBatcher(db, linkForms)
  // Semantic recall only with RELAY_EMBEDDINGS_URL (embeddings.ts); otherwise null and nothing of it runs.
  const vectors = yield* Effect.flatMap(
    embeddingSettings,
    Option.match({ onNone: () => Effect.succeed(null), onSome: (s) => makeVectors(makeEmbedder(s)) })
  )
  // A search asks the vector index only once it is there (a memory with no vector yet has none).
  const ensureReady = (found: ReadonlyArray<ReadonlyArray<number>>) =>
    vectors === null || found.length === 0 ?
      Effect.succeed(false) :
      ensureVectorIndex(db, vectors, found[0]!.length).pipe(
        Effect.zipRight(Ref.get(vectors.indexed)),
        Effect.catchAllCause(() => Effect.succeed(false))
      )
  const store: FactStoreShape = {
    save: (fact) => now.pipe(Effect.flatMap((now) => save(db, commit, reads, gate, capacity, vectors, now, fact))),
    saveMany: (facts, first) => now.pipe(Effect.flatMap((now) => saveMany(db, capacity, now, facts, first))),
    context: (id, page, asOf) => context(db, gate, id, page, asOf ?? null),
    lostDecisions: (ids, asOf) => lostDecisions(db, ids, asOf),
    impact: (id, page) => impact(db, gate, id, page),
    currentState: (options) => now.pipe(Effect.flatMap((now) => currentState(db, spacing, now, options))),
    openConflicts: (request) => openConflicts(db, request),
    resolve: (r) => now.pipe(Effect.flatMap((now) => resolve(db, gate, now, r))),
    compatible: (c) => now.pipe(Effect.flatMap((now) => compatible(db, now, c))),
    retract: (r) => now.pipe(Effect.flatMap((now) => retract(db, gate, now, r))),
    confirm: (c) => now.pipe(Effect.flatMap((now) => confirm(db, now, c))),
    briefing: (options) => now.pipe(Effect.flatMap((now) => briefing(db, now, options))),
    important: (options) => important(db, options),
    clusters: (options) => clusterPage(db, floor, options),
    search: (options) => search(db, options),
    similar: (options, texts) =>
      vectors === null ? Effect.succeed(null) : Effect.gen(function*() {
        const found = yield* vectors.embedder.embed(texts)
        if (found === null) return null
        const ready = yield* ensureReady(found)
        if (!ready) return null
        return yield* Effect.forEach(found, (v) => vectorSearch(db, options, v, vectors.embedder.settings.strong)).pipe(
          // A vector the index refuses (another dimension: the model changed) ranks by words alone; a
          // thread that is not there is the search's own answer.
          Effect.catchAllCause((cause) => {
            const failure = Cause.failureOption(cause)
            return (Option.isSome(failure) && failure.value._tag !== "DatabaseError") || Cause.isInterruptedOnly(cause)
              ? Effect.failCause(cause)
              : Effect.as(Effect.logWarning("vector search not run", cause), null)
          })
        )
      }),
    matchCount: (options, cap) => matchCount(db, options, cap),
    idsStartingWith: (prefixes) => matchPrefixes(db, prefixes),
    shownNames,
    thread: (request) => thread(db, request),
    timeline: (request) => timeline(db, request),
    recordsAfter: (at, limit) => recordsAfter(db, at, limit),
    ...procedureOps(db)
  }
  return store
})

/** FactStore on the GraphDatabase it is given (the graph it reads and writes). */
export const FactStoreLive = Layer.scoped(FactStore, makeFactStore)

/**
 * A serving process's look at whether its graph's importance is due to be materialised
 * (rankGenerations.ts), for as long as the layer lives: the stdio server and each team workspace.
 */
export const RankDaemonLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const db = yield* GraphDatabase
    yield* Effect.forkScoped(rankDaemon(db))
    // With RELAY_EMBEDDINGS_URL, the same process gives vectors to the facts that have none (vectors.ts).
    const settings = yield* embeddingSettings
    if (Option.isSome(settings)) {
      yield* Effect.forkScoped(backfillDaemon(db, yield* makeVectors(makeEmbedder(settings.value))))
    }
  })
)
