/**
 * The pure model of procedures (issue 44): a procedure is a fact of kind `procedure` with ordered
 * steps and preconditions; runs are recorded against one version and counted on write; a failed run
 * may revise it into a new version whose first precondition is the failure's lesson. The store's
 * Cypher (layers/procedures) is held to these functions by test/procedures/*.test.ts.
 */

export type RunOutcome = "success" | "failure"

export interface ModelProcedure {
  readonly id: string
  readonly goal: string
  readonly steps: ReadonlyArray<string>
  /** Mandatory before the first step; a revision's lesson comes first. */
  readonly preconditions: ReadonlyArray<string>
  /** The version it revises (null: the first). */
  readonly previous: string | null
  readonly version: number
  readonly success: number
  readonly failure: number
}

export interface ModelRun {
  readonly id: string
  readonly procedure: string
  readonly outcome: RunOutcome
  /** The step (from 1) it failed at; null: not said or a success. */
  readonly step: number | null
  readonly note: string | null
}

export interface ProcedureModel {
  readonly procedures: ReadonlyMap<string, ModelProcedure>
  /** In the order they were recorded. */
  readonly runs: ReadonlyArray<ModelRun>
}

export const emptyProcedures: ProcedureModel = { procedures: new Map(), runs: [] }

export const saveProcedure = (
  m: ProcedureModel,
  p: { id: string; goal: string; steps: ReadonlyArray<string>; preconditions: ReadonlyArray<string> }
): ProcedureModel => {
  if (m.procedures.has(p.id)) return m
  const procedures = new Map(m.procedures)
  procedures.set(p.id, { ...p, previous: null, version: 1, success: 0, failure: 0 })
  return { ...m, procedures }
}

/** A run is counted once, however often it is sent (its id is the request's); a run of no procedure changes nothing. */
export const recordRun = (m: ProcedureModel, run: ModelRun): ProcedureModel => {
  const p = m.procedures.get(run.procedure)
  if (p === undefined || m.runs.some((r) => r.id === run.id)) return m
  const procedures = new Map(m.procedures)
  procedures.set(p.id, {
    ...p,
    success: p.success + (run.outcome === "success" ? 1 : 0),
    failure: p.failure + (run.outcome === "failure" ? 1 : 0)
  })
  return { procedures, runs: [...m.runs, run] }
}

/**
 * A new version of `of`: the lesson becomes its first precondition (before the earlier ones, which
 * it keeps), its steps are the new ones or the old, and it starts with no runs; the old version
 * keeps its own runs and counts.
 */
export const revise = (
  m: ProcedureModel,
  r: { of: string; id: string; lesson: string; steps?: ReadonlyArray<string> | undefined }
): ProcedureModel => {
  const old = m.procedures.get(r.of)
  if (old === undefined || m.procedures.has(r.id)) return m
  const procedures = new Map(m.procedures)
  procedures.set(r.id, {
    id: r.id,
    goal: old.goal,
    steps: r.steps ?? old.steps,
    preconditions: [r.lesson, ...old.preconditions],
    previous: old.id,
    version: old.version + 1,
    success: 0,
    failure: 0
  })
  return { ...m, procedures }
}

/** What check-db --verify compares the stored counts with: the runs, counted. */
export const recount = (runs: ReadonlyArray<ModelRun>, id: string) => ({
  success: runs.filter((r) => r.procedure === id && r.outcome === "success").length,
  failure: runs.filter((r) => r.procedure === id && r.outcome === "failure").length
})

/** Laplace-smoothed success rate: (s + 1) / (n + 2); a procedure nobody ran scores 1/2. */
export const laplace = (success: number, failure: number): number => (success + 1) / (success + failure + 2)

/**
 * Compares two records by Laplace rate, higher first, in whole numbers (no rounding can tie or
 * split two rates): (s1 + 1)(n2 + 2) against (s2 + 1)(n1 + 2).
 */
export const byRate = (
  x: { readonly success: number; readonly failure: number },
  y: { readonly success: number; readonly failure: number }
): number => (y.success + 1) * (x.success + x.failure + 2) - (x.success + 1) * (y.success + y.failure + 2)

/**
 * Candidates (in match order, best match first) by Laplace rate, ties by match: a stable sort, so
 * a procedure nobody has run keeps its place among equals and is never dropped.
 */
export const rank = <A extends { readonly success: number; readonly failure: number }>(
  matches: ReadonlyArray<A>
): Array<A> => matches.map((a, i) => ({ a, i })).sort((x, y) => byRate(x.a, y.a) || x.i - y.i).map((x) => x.a)

/** Its earlier versions, newest first (v1 last), each with its own counts. */
export const lineage = (m: ProcedureModel, id: string): Array<ModelProcedure> => {
  const out: Array<ModelProcedure> = []
  const seen = new Set([id])
  for (let at = m.procedures.get(id)?.previous ?? null; at !== null && !seen.has(at);) {
    seen.add(at)
    const p = m.procedures.get(at)
    if (p === undefined) break
    out.push(p)
    at = p.previous
  }
  return out
}

/** The versions no later one revises: what a search for a goal offers. */
export const current = (m: ProcedureModel): Array<ModelProcedure> => {
  const revised = new Set([...m.procedures.values()].flatMap((p) => p.previous === null ? [] : [p.previous]))
  return [...m.procedures.values()].filter((p) => !revised.has(p.id))
}
