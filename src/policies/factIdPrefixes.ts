import { Effect, SchemaAST } from "effect"
import { type DatabaseError, FactNotFound, InvalidInput, TaskNotFound } from "../domain/errors.js"
import { FactIdReference, TaskIdReference } from "../domain/ids.js"
import { FactStore } from "../services/FactStore.js"
import { TaskStore } from "../services/TaskStore.js"
import type { AnyTool } from "../tools/Tool.js"
import { inputProperties } from "./scanNames.js"

const wholeIdLength = 36

const isReference = (mark: symbol) => (ast: SchemaAST.AST): boolean =>
  ast.annotations[mark] === true ||
  (SchemaAST.isUnion(ast) && ast.types.some(isReference(mark)))

/** A list of ids (`fact_ids`), under its refinements (the item count) and its optional union. */
const isReferenceList = (mark: symbol) => (ast: SchemaAST.AST): boolean =>
  SchemaAST.isRefinement(ast) ?
    isReferenceList(mark)(ast.from) :
    SchemaAST.isUnion(ast) ?
    ast.types.some(isReferenceList(mark)) :
    SchemaAST.isTupleType(ast) && ast.rest.some((r) => isReference(mark)(r.type))

interface ReferenceFields {
  readonly single: ReadonlyArray<string>
  readonly lists: ReadonlyArray<string>
}

/**
 * The names of the top-level input fields that hold an id marked `mark` or a list of them, found
 * once per tool and mark from its input Schema.
 */
const fieldsOf = (tool: AnyTool, mark: symbol): ReferenceFields => {
  const properties = inputProperties(tool)
  return {
    single: properties.filter((p) => isReference(mark)(p.type)).map((p) => String(p.name)),
    lists: properties.filter((p) => isReferenceList(mark)(p.type)).map((p) => String(p.name))
  }
}
const fieldsByTool = new WeakMap<AnyTool, Map<symbol, ReferenceFields>>()
const referenceFields = (tool: AnyTool, mark: symbol) => {
  let byMark = fieldsByTool.get(tool)
  if (byMark === undefined) {
    byMark = new Map()
    fieldsByTool.set(tool, byMark)
  }
  let fields = byMark.get(mark)
  if (fields === undefined) {
    fields = fieldsOf(tool, mark)
    byMark.set(mark, fields)
  }
  return fields
}

const isPrefix = (value: unknown): value is string => typeof value === "string" && value.length < wholeIdLength

/** Where a prefix sits in the input: a field, or an item of a list field (`fact_ids.0`, as decode errors name it). */
interface ShortId {
  readonly field: string
  readonly index: number | null
  readonly prefix: string
}

const shortIdsIn = (record: Record<string, unknown>, fields: ReferenceFields): Array<ShortId> => [
  ...fields.single.flatMap((field) => {
    const value = record[field]
    return isPrefix(value) ? [{ field, index: null, prefix: value }] : []
  }),
  ...fields.lists.flatMap((field) => {
    const value = record[field]
    return Array.isArray(value)
      ? value.flatMap((item, index) => isPrefix(item) ? [{ field, index, prefix: item }] : [])
      : []
  })
]

type Lookup = (
  prefixes: ReadonlyArray<string>
) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<string>>, DatabaseError, FactStore | TaskStore>

/** What kinds of id take prefixes: the mark on their Schema, the noun refusals use, where to look them up. */
const kinds: ReadonlyArray<{
  readonly mark: symbol
  readonly noun: "fact" | "task"
  readonly lookup: Lookup
}> = [
  {
    mark: FactIdReference,
    noun: "fact",
    lookup: (p) => Effect.flatMap(FactStore, (store) => store.idsStartingWith(p))
  },
  { mark: TaskIdReference, noun: "task", lookup: (p) => Effect.flatMap(TaskStore, (store) => store.idsStartingWith(p)) }
]

/**
 * Replaces every fact-id and task-id prefix in a decoded input by the whole id, in one query for
 * each kind the call's fields and list items hold, so each tool (and each tool added later whose
 * fields use the FactId or TaskId Schema) takes the short ids replies show. A whole id passes
 * untouched (the tool answers fact_not_found or task_not_found itself); a prefix no fact (task) has
 * is fact_not_found (task_not_found), one that two share is invalid_input, both naming the field
 * (and the item of a list); the second also names the whole ids it could mean (Relay's ids, not the
 * caller's text), the first echoes nothing.
 */
export const resolveFactIdPrefixes = (tool: AnyTool) =>
(
  input: unknown
): Effect.Effect<unknown, FactNotFound | TaskNotFound | InvalidInput | DatabaseError, FactStore | TaskStore> =>
  Effect.reduce(kinds, input, (current, kind) => resolveKind(tool, kind, current as Record<string, unknown>))

const resolveKind = (
  tool: AnyTool,
  kind: typeof kinds[number],
  record: Record<string, unknown>
): Effect.Effect<unknown, FactNotFound | TaskNotFound | InvalidInput | DatabaseError, FactStore | TaskStore> => {
  const short = shortIdsIn(record, referenceFields(tool, kind.mark))
  if (short.length === 0) return Effect.succeed(record)
  return kind.lookup(short.map((s) => s.prefix)).pipe(
    Effect.flatMap((found): Effect.Effect<unknown, FactNotFound | TaskNotFound | InvalidInput> => {
      const resolved: Record<string, unknown> = { ...record }
      for (const { field, index, prefix } of short) {
        const where = index === null ? field : `${field}.${index}`
        const ids = found.get(prefix) ?? []
        if (ids.length === 0) {
          const message = `${where}: no ${kind.noun} has an id starting with that`
          return Effect.fail(kind.noun === "fact" ? new FactNotFound({ message }) : new TaskNotFound({ message }))
        }
        if (ids.length > 1) {
          return Effect.fail(
            new InvalidInput({
              // The ids are Relay's own, not the caller's text: the compact JSON has only short ids, so
              // the refusal hands over the whole ones to choose from.
              message: `${where}: more than one ${kind.noun} has an id starting with that (${
                ids.slice(0, 2).join(", ")
              }${ids.length > 2 ? " and more" : ""}); give more characters or the whole id`
            })
          )
        }
        if (index === null) resolved[field] = ids[0]
        else {
          const list = [...(resolved[field] as ReadonlyArray<unknown>)]
          list[index] = ids[0]
          resolved[field] = list
        }
      }
      return Effect.succeed(resolved)
    })
  )
}
