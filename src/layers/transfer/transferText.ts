import { Clock, Effect, ParseResult, Schema, Stream } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { checkImport, idsFromOutside } from "../../domain/importCheck.js"
import { headerLine, HeaderRecord, MemoryRecord, recordLine } from "../../domain/memoryRecord.js"
import { defaultStampAhead, stampOutside } from "../../domain/stampWindow.js"
import { GraphDatabase } from "../../services/GraphDatabase.js"
import { SecretScanner } from "../../services/SecretScanner.js"
import { ImportRefused, type ImportTextOptions } from "../../services/Transfer.js"
import { clockWrite } from "../database/clock.js"
import { stampClause } from "../factStore/projection.js"
import { exportRecords } from "./exportRecords.js"
import { importRecords } from "./importRecords.js"

/** The export of the connected graph as lines (the header first), each ending in a newline. */
export const exportLines = Effect.map(GraphDatabase, (db) =>
  Stream.concat(
    Stream.make(`${headerLine}\n`),
    exportRecords(db).pipe(Stream.map((r) => `${recordLine(r)}\n`))
  ))

/** The whole export as one string (for tests and small graphs; the CLI streams `exportLines`). */
export const exportText = Effect.flatMap(exportLines, (lines) => Stream.runFold(lines, "", (text, line) => text + line))

const refuse = (line: number, message: string) => new ImportRefused({ message: `line ${line}: ${message}` })

const decodeHeader = Schema.decodeUnknownEither(Schema.parseJson(HeaderRecord))
const decodeRecord = Schema.decodeUnknownEither(Schema.parseJson(MemoryRecord))

/** The first issue of a failed decode, as "field: message" (the record's own text is never echoed). */
const describe = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const first = issues[0]
  if (first === undefined) return "is not a record of a Relay export"
  const field = first.path.join(".")
  return field === "" ? "is not a record of a Relay export (JSON with a known kind)" : `${field}: ${first.message}`
}

/** The fields the tools scan when they write them (tools/saveFact, resolveConflict, retractFact, confirmFact, the task tools). */
const scannedFields = (r: MemoryRecord): ReadonlyArray<readonly [string, string | null]> => {
  switch (r.kind) {
    case "fact":
      return [
        ["content", r.content],
        ["written_by", r.written_by],
        ["session_id", r.session_id],
        // What relay_save_fact and relay_record_run scan of a procedure (tools/procedureSave.ts).
        ...(r.procedure?.preconditions ?? []).map((t, i) => [`procedure.preconditions.${i}`, t] as const),
        ...(r.procedure?.steps ?? []).map((t, i) => [`procedure.steps.${i}`, t] as const)
      ]
    case "retraction":
      return [["reason", r.reason], ["retracted_by", r.retracted_by]]
    case "confirmation":
      return [["reason", r.reason], ["confirmed_by", r.confirmed_by]]
    case "decision":
    case "compatible":
      return [["reason", r.reason], ["resolved_by", r.resolved_by]]
    case "task":
      return [
        ["title", r.title],
        ["detail", r.detail],
        ["written_by", r.written_by],
        ["decided_by", r.decided_by],
        ["last_finish.note", r.last_finish?.note ?? null],
        ["last_finish.by", r.last_finish?.by ?? null]
      ]
    case "task_note":
      return [["note", r.note], ["by", r.by]]
    case "run":
      return [["note", r.note], ["ran_by", r.ran_by]]
  }
}

/** What a file of version 1 cannot hold (it came before procedures' parts and runs). */
const newerThan1 = (r: MemoryRecord): string | undefined =>
  r.kind === "run"
    ? "kind: run records come with format version 2 (the header says 1)"
    : r.kind === "fact" && r.procedure !== undefined
    ? "procedure: comes with format version 2 (the header says 1)"
    : r.kind === "task" && r.procedure_id !== undefined
    ? "procedure_id: comes with format version 2 (the header says 1)"
    : undefined

/**
 * The Import record (not exported): the file's SHA-256, who ran it and when, made before the first
 * write. Its stamp is set when the import ends, in commit order (projection.ts stampClause), so the
 * next briefing of every reader finds it and, through `import_id`, what it brought (briefing.ts).
 */
const openImport = "CREATE (:Import {id: $id, sha256: $sha256, by: $by, started_at: $now, lines: $lines})"
const closeImport = `MATCH (i:Import {id: $id}) ${stampClause(["i"])} SET i.created_at = ts ` +
  clockWrite({ last: "ts" })

/** The fields that hold a name, not a text: one value recurs on many lines. */
const nameFields = new Set([
  "written_by",
  "session_id",
  "retracted_by",
  "confirmed_by",
  "resolved_by",
  "by",
  "decided_by",
  "ran_by"
])

/**
 * Parses, checks and writes an export file's text into the connected graph. Every line is decoded
 * and scanned for secrets, its stamps checked against the window (domain/stampWindow.ts), and the
 * file's own rules are checked (domain/importCheck.ts), before the first write; without `merge` the
 * graph must hold no fact.
 */
export const importText = Effect.fn("relay/transfer/importText")(function*(text: string, options: ImportTextOptions) {
  const db = yield* GraphDatabase
  const scanner = yield* SecretScanner
  const now = yield* Clock.currentTimeMillis
  const ahead = options.ahead ?? defaultStampAhead
  const by = options.by ?? "unknown"
  yield* scanner.check("by", by).pipe(Effect.mapError((e) => new ImportRefused({ message: `--by: ${e.message}` })))
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  const header = lines[0] === undefined ? undefined : decodeHeader(lines[0])
  if (header === undefined || header._tag === "Left") {
    return yield* refuse(
      1,
      `not a Relay export: the first line must be ${headerLine} (or version 1, an older Relay's file)`
    )
  }
  const version = header.right.version
  const records: Array<MemoryRecord> = []
  const scannedNames = new Set<string>()
  for (let i = 1; i < lines.length; i++) {
    const decoded = decodeRecord(lines[i])
    if (decoded._tag === "Left") return yield* refuse(i + 1, describe(decoded.left))
    const record = decoded.right
    const newer = version === 1 ? newerThan1(record) : undefined
    if (newer !== undefined) return yield* refuse(i + 1, newer)
    const outside = stampOutside(record, now, ahead)
    if (outside !== undefined) return yield* refuse(i + 1, outside)
    // The fields the tools scan when they write them (tools/saveFact, resolveConflict, retractFact).
    for (const [field, value] of scannedFields(record)) {
      // Names repeat across a file: each distinct one is scanned once (bulkSave.ts does the same).
      if (value === null || scannedNames.has(value)) continue
      yield* scanner.check(field, value).pipe(Effect.mapError((e) => refuse(i + 1, e.message)))
      if (nameFields.has(field)) scannedNames.add(value)
    }
    records.push(record)
  }
  if (!options.merge) {
    for (const label of ["Fact", "Task"]) {
      const n = yield* db.read(`MATCH (x:${label}) RETURN count(x) AS n`, {}, Schema.Struct({ n: Schema.Number }))
      if ((n[0]?.n ?? 0) > 0) {
        return yield* new ImportRefused({
          message: `the graph ${db.graphName} already holds ${label === "Fact" ? "facts" : "tasks"}: ` +
            "import into an empty graph, or pass --merge"
        })
      }
    }
  }
  const outside = idsFromOutside(records)
  const inGraph = new Set<string>()
  const graphDepth = new Map<string, number>()
  const graphProcedures = new Set<string>()
  for (let i = 0; i < outside.length; i += 1000) {
    const rows = yield* db.read(
      "UNWIND $ids AS id MATCH (f:Fact {id: id}) RETURN f.id AS id, coalesce(f.merge_depth, 0) AS depth, " +
        "f.kind = 'procedure' AS procedure",
      { ids: outside.slice(i, i + 1000) },
      Schema.Struct({ id: Schema.String, depth: Schema.Number, procedure: Schema.NullOr(Schema.Boolean) })
    )
    for (const r of rows) {
      inGraph.add(r.id)
      if (r.depth > 0) graphDepth.set(r.id, r.depth)
      if (r.procedure === true) graphProcedures.add(r.id)
    }
  }
  const problem = checkImport(records, inGraph, graphDepth, graphProcedures)
  if (problem !== undefined) return yield* refuse(problem.line, problem.message)
  const importId = randomUUID()
  yield* db.write(openImport, {
    id: importId,
    sha256: createHash("sha256").update(text).digest("hex"),
    by,
    now,
    lines: lines.length
  })
  const counts = yield* importRecords(db, records, {
    merge: options.merge,
    now,
    importId,
    approvals: options.approvals ?? false,
    ...(options.progress === undefined ? {} : { progress: options.progress })
  }).pipe(
    Effect.ensuring(
      Effect.ignore(Effect.flatMap(Clock.currentTimeMillis, (end) => db.write(closeImport, { id: importId, now: end })))
    )
  )
  return { ...counts, importId }
})
