import { compareRecords, type MemoryRecord, type TaskRecord } from "./memoryRecord.js"
import { buildsOnMessage, compatibleMessage, mergeDepthCap, resolutionMessage } from "./rules.js"

/**
 * The rules an import file must keep by itself, checked on every record before anything is written:
 * write order, every id named before it is used (earlier in the file, or already in the graph when
 * merging), and the contract's rules for decisions, compatible records and retractions among the
 * file's own facts. What depends on the graph's own edges (a merge) is checked again by each write
 * statement. Answers the first broken rule with its line number (1 is the header).
 */
export interface ImportProblem {
  readonly line: number
  readonly message: string
}

export const checkImport = (
  records: ReadonlyArray<MemoryRecord>,
  /** Ids of facts the graph already holds, among those the file names without defining. */
  inGraph: ReadonlySet<string>,
  /** Of those, the merges on their deepest line (merge_depth), where not 0. */
  graphDepth: ReadonlyMap<string, number> = new Map(),
  /** Of those, the procedures (a run or a task may name one). */
  graphProcedures: ReadonlySet<string> = new Set()
): ImportProblem | undefined => {
  /** Every fact of the file it builds on, the first first ([] for a root). */
  const parent = new Map<string, ReadonlyArray<string>>()
  const depth = new Map<string, number>()
  const depthOf = (id: string) => depth.get(id) ?? graphDepth.get(id) ?? 0
  const beats = new Map<string, Array<string>>()
  const retracted = new Set<string>()
  const retractionIds = new Set<string>()
  const confirmationIds = new Set<string>()
  const tasks = new Set<string>()
  const taskNotes = new Set<string>()
  const runs = new Set<string>()
  // Tasks are stamped by the process's clock and facts by the graph's, which runs ahead in a burst
  // of saves: a task may come before a fact it names, and is checked against the whole file.
  const fileFacts = new Set(records.flatMap((r) => (r.kind === "fact" ? [r.id] : [])))
  const fileTasks = new Set(records.flatMap((r) => (r.kind === "task" ? [r.id] : [])))
  // Runs are stamped by the process's clock too: a run may come before its procedure's fact.
  const fileProcedures = new Set(
    records.flatMap((r) => (r.kind === "fact" && r.fact_kind === "procedure" ? [r.id] : []))
  )
  const isProcedure = (id: string) => fileProcedures.has(id) || graphProcedures.has(id)
  const exists = (id: string) => parent.has(id) || inGraph.has(id)
  const ancestorsOf = (id: string): Set<string> => {
    const out = new Set<string>()
    const todo = [...(parent.get(id) ?? [])]
    while (todo.length > 0) {
      const up = todo.pop()!
      if (out.has(up)) continue
      out.add(up)
      todo.push(...(parent.get(up) ?? []))
    }
    return out
  }
  const supersedesThrough = (from: string, to: string): boolean => {
    const seen = new Set<string>([from])
    const todo = [from]
    while (todo.length > 0) {
      for (const next of beats.get(todo.pop()!) ?? []) {
        if (next === to) return true
        if (!seen.has(next)) {
          seen.add(next)
          todo.push(next)
        }
      }
    }
    return false
  }
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!
    const line = i + 2
    const fail = (message: string): ImportProblem => ({ line, message })
    if (i > 0 && compareRecords(records[i - 1]!, r) >= 0) {
      return fail("records must be in write order (created_at, then kind, then id), each once")
    }
    switch (r.kind) {
      case "fact": {
        if (parent.has(r.id)) return fail("id: a fact with this id comes earlier in the file")
        if (r.parent_id !== null && !exists(r.parent_id)) {
          return fail("parent_id: no fact with that id earlier in the file or in the graph")
        }
        const also = r.also_on ?? []
        if (also.length > 0 && r.parent_id === null) {
          return fail("also_on: only a fact with a parent_id has more parents")
        }
        if (also.some((id) => !exists(id))) {
          return fail("also_on: no fact with that id earlier in the file or in the graph")
        }
        if (r.procedure !== undefined) {
          if (r.fact_kind !== "procedure") return fail("procedure: only a fact of kind procedure has steps")
          if (r.procedure.lineage.some((id) => !exists(id))) {
            return fail("procedure.lineage: no fact with that id earlier in the file or in the graph")
          }
          if (r.procedure.lineage.length >= r.procedure.version) {
            return fail("procedure.lineage: names more earlier versions than the version has")
          }
        }
        const all = r.parent_id === null ? [] : [r.parent_id, ...also]
        if (new Set(all).size !== all.length) return fail("also_on: names a parent twice")
        const d = all.length === 0 ? 0 : Math.max(...all.map(depthOf)) + (all.length > 1 ? 1 : 0)
        if (d > mergeDepthCap) return fail(`also_on: ${buildsOnMessage.too_deep.replace(/^builds_on: /, "")}`)
        parent.set(r.id, all)
        if (d > 0) depth.set(r.id, d)
        break
      }
      case "decision": {
        if (!exists(r.winner_id)) return fail("winner_id: no fact with that id earlier in the file or in the graph")
        if (!exists(r.loser_id)) return fail("loser_id: no fact with that id earlier in the file or in the graph")
        if (r.winner_id === r.loser_id) return fail(resolutionMessage.winner_is_loser)
        if (supersedesThrough(r.loser_id, r.winner_id)) return fail(resolutionMessage.supersedes_cycle)
        if (ancestorsOf(r.winner_id).has(r.loser_id) || ancestorsOf(r.loser_id).has(r.winner_id)) {
          return fail(resolutionMessage.builds_on_each_other)
        }
        beats.set(r.winner_id, [...(beats.get(r.winner_id) ?? []), r.loser_id])
        break
      }
      case "compatible": {
        const [x, y] = r.fact_ids
        if (!exists(x) || !exists(y)) return fail("fact_ids: no fact with that id earlier in the file or in the graph")
        if (x >= y) return fail("fact_ids: must be two different ids, the lower first")
        const px = parent.get(x)
        const py = parent.get(y)
        // A pair among graph facts is checked by the write statement (the file does not say their parents).
        if (px !== undefined && py !== undefined && !px.some((p) => py.includes(p))) {
          return fail(compatibleMessage.not_siblings)
        }
        if (supersedesThrough(x, y) || supersedesThrough(y, x)) return fail(compatibleMessage.already_superseded)
        break
      }
      case "retraction": {
        if (!exists(r.fact_id)) return fail("fact_id: no fact with that id earlier in the file or in the graph")
        if (retracted.has(r.fact_id)) return fail("fact_id: a fact has at most one retraction")
        if (retractionIds.has(r.id)) return fail("id: a retraction with this id comes earlier in the file")
        retracted.add(r.fact_id)
        retractionIds.add(r.id)
        break
      }
      case "confirmation": {
        // Whether the fact was stale then is the write statement's to check (importRecords.ts).
        if (!exists(r.fact_id)) return fail("fact_id: no fact with that id earlier in the file or in the graph")
        if (confirmationIds.has(r.id)) return fail("id: a confirmation with this id comes earlier in the file")
        confirmationIds.add(r.id)
        break
      }
      case "task": {
        if (tasks.has(r.id)) return fail("id: a task with this id comes earlier in the file")
        const missing = r.about.find((id) => !fileFacts.has(id) && !inGraph.has(id))
        if (missing !== undefined) return fail("about: no fact with that id in the file or in the graph")
        if (new Set(r.about).size !== r.about.length) return fail("about: names a fact twice")
        if (r.procedure_id !== undefined && !isProcedure(r.procedure_id)) {
          return fail("procedure_id: no procedure with that id in the file or in the graph")
        }
        const problem = taskProblem(r)
        if (problem !== undefined) return fail(problem)
        tasks.add(r.id)
        break
      }
      case "task_note": {
        if (!fileTasks.has(r.task_id)) return fail("task_id: no task with that id in the file")
        if (taskNotes.has(r.id)) return fail("id: a task note with this id comes earlier in the file")
        taskNotes.add(r.id)
        break
      }
      case "run": {
        if (!isProcedure(r.procedure_id)) {
          return fail("procedure_id: no procedure with that id in the file or in the graph")
        }
        if (runs.has(r.id)) return fail("id: a run with this id comes earlier in the file")
        if (r.outcome === "success" && r.failed_step !== null) {
          return fail("failed_step: only a failure has a failed step")
        }
        runs.add(r.id)
        break
      }
    }
  }
  return undefined
}

/** A task's own fields must agree with each other as the task tools leave them (domain/taskModel.ts). */
const taskProblem = (r: TaskRecord): string | undefined => {
  if (r.attempts > r.max_attempts) return "attempts: more than max_attempts"
  if ((r.status === "awaiting_approval" || r.status === "rejected") && !r.needs_approval) {
    return `status: ${r.status} is only for a task that needs approval`
  }
  const decided = r.decided_by !== null
  if (decided !== (r.decided_at !== null)) return "decided_by and decided_at: both or neither"
  if (decided && !r.needs_approval) return "decided_by: only a task that needs approval is decided"
  if (r.status === "awaiting_approval" && decided) return "decided_by: a task awaiting approval is not decided yet"
  if (r.needs_approval && r.status !== "awaiting_approval" && !decided) {
    return "decided_by: a task that needed approval and left awaiting_approval names who decided"
  }
  if (r.status === "failed" && r.attempts !== r.max_attempts) return "attempts: a failed task used all max_attempts"
  const outcome = r.last_finish?.outcome
  if ((r.status === "done") !== (outcome === "done")) {
    return "last_finish: a task is done exactly when its last finish was"
  }
  if (r.status === "failed" && outcome !== "failed") return "last_finish: a failed task's last finish failed"
  if (r.attempts > 0 && r.last_finish === null) return "last_finish: a task with attempts was finished"
  return undefined
}

/** The fact ids a file uses without defining them first: the ones to look up in the graph. */
export const idsFromOutside = (records: ReadonlyArray<MemoryRecord>): ReadonlyArray<string> => {
  const defined = new Set<string>()
  const outside = new Set<string>()
  const use = (id: string | null) => {
    if (id !== null && !defined.has(id)) outside.add(id)
  }
  for (const r of records) {
    switch (r.kind) {
      case "fact":
        use(r.parent_id)
        for (const id of r.also_on ?? []) use(id)
        for (const id of r.procedure?.lineage ?? []) use(id)
        defined.add(r.id)
        break
      case "decision":
        use(r.winner_id)
        use(r.loser_id)
        break
      case "compatible":
        use(r.fact_ids[0])
        use(r.fact_ids[1])
        break
      case "retraction":
      case "confirmation":
        use(r.fact_id)
        break
      case "task":
        for (const id of r.about) use(id)
        use(r.procedure_id ?? null)
        break
      case "run":
        use(r.procedure_id)
        break
      case "task_note":
    }
  }
  return [...outside]
}
