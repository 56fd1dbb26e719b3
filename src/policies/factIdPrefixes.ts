import { Effect, SchemaAST } from "effect"
import { type DatabaseError, FactNotFound, InvalidInput } from "../domain/errors.js"
import { FactIdReference } from "../domain/ids.js"
import { FactStore } from "../services/FactStore.js"
import type { AnyTool } from "../tools/Tool.js"

const wholeIdLength = 36

const isReference = (ast: SchemaAST.AST): boolean =>
  ast.annotations[FactIdReference] === true ||
  (SchemaAST.isUnion(ast) && ast.types.some(isReference))

/** A list of fact ids (`fact_ids`), under its refinements (the item count) and its optional union. */
const isReferenceList = (ast: SchemaAST.AST): boolean =>
  SchemaAST.isRefinement(ast) ?
    isReferenceList(ast.from) :
    SchemaAST.isUnion(ast) ?
    ast.types.some(isReferenceList) :
    SchemaAST.isTupleType(ast) && ast.rest.some((r) => isReference(r.type))

interface ReferenceFields {
  readonly single: ReadonlyArray<string>
  readonly lists: ReadonlyArray<string>
}

/** The names of the top-level input fields that hold a fact id or a list of them, found once per tool from its input Schema. */
const fieldsOf = (tool: AnyTool): ReferenceFields => {
  const ast = tool.input.ast
  const literal = SchemaAST.isTransformation(ast) ? ast.from : ast
  const properties = SchemaAST.isTypeLiteral(literal) ? literal.propertySignatures : []
  return {
    single: properties.filter((p) => isReference(p.type)).map((p) => String(p.name)),
    lists: properties.filter((p) => isReferenceList(p.type)).map((p) => String(p.name))
  }
}
const fieldsByTool = new WeakMap<AnyTool, ReferenceFields>()
const referenceFields = (tool: AnyTool) => {
  let fields = fieldsByTool.get(tool)
  if (fields === undefined) {
    fields = fieldsOf(tool)
    fieldsByTool.set(tool, fields)
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

/**
 * Replaces every fact-id prefix in a decoded input by the whole id, in one query for all of the
 * call's fields and list items, so each tool (and each tool added later whose fields use the FactId
 * Schema) takes the short ids replies show. A whole id passes untouched (the tool answers
 * fact_not_found itself); a prefix no fact has is fact_not_found, one that two facts share is
 * invalid_input, both naming the field (and the item of a list); the second also names the whole
 * ids it could mean (Relay's ids, not the caller's text), the first echoes nothing.
 */
export const resolveFactIdPrefixes = (tool: AnyTool) =>
(
  input: unknown
): Effect.Effect<unknown, FactNotFound | InvalidInput | DatabaseError, FactStore> => {
  const record = input as Record<string, unknown>
  const short = shortIdsIn(record, referenceFields(tool))
  if (short.length === 0) return Effect.succeed(input)
  return Effect.flatMap(FactStore, (store) => store.idsStartingWith(short.map((s) => s.prefix))).pipe(
    Effect.flatMap((found): Effect.Effect<unknown, FactNotFound | InvalidInput> => {
      const resolved: Record<string, unknown> = { ...record }
      for (const { field, index, prefix } of short) {
        const where = index === null ? field : `${field}.${index}`
        const ids = found.get(prefix) ?? []
        if (ids.length === 0) {
          return Effect.fail(new FactNotFound({ message: `${where}: no fact has an id starting with that` }))
        }
        if (ids.length > 1) {
          return Effect.fail(
            new InvalidInput({
              // The ids are Relay's own, not the caller's text: the compact JSON has only short ids, so
              // the refusal hands over the whole ones to choose from.
              message: `${where}: more than one fact has an id starting with that (${ids.slice(0, 2).join(", ")}${
                ids.length > 2 ? " and more" : ""
              }); give more characters or the whole id`
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
