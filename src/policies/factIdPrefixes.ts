import { Effect, SchemaAST } from "effect"
import { type DatabaseError, FactNotFound, InvalidInput } from "../domain/errors.js"
import { FactIdReference } from "../domain/ids.js"
import { FactStore } from "../services/FactStore.js"
import type { AnyTool } from "../tools/Tool.js"

const wholeIdLength = 36

const isReference = (ast: SchemaAST.AST): boolean =>
  ast.annotations[FactIdReference] === true ||
  (SchemaAST.isUnion(ast) && ast.types.some(isReference))

/** The names of the top-level input fields that hold a fact id, found once per tool from its input Schema. */
const fieldsOf = (tool: AnyTool): ReadonlyArray<string> => {
  const ast = tool.input.ast
  const literal = SchemaAST.isTransformation(ast) ? ast.from : ast
  return SchemaAST.isTypeLiteral(literal)
    ? literal.propertySignatures.filter((p) => isReference(p.type)).map((p) => String(p.name))
    : []
}
const fieldsByTool = new WeakMap<AnyTool, ReadonlyArray<string>>()
const referenceFields = (tool: AnyTool) => {
  let fields = fieldsByTool.get(tool)
  if (fields === undefined) {
    fields = fieldsOf(tool)
    fieldsByTool.set(tool, fields)
  }
  return fields
}

/**
 * Replaces every fact-id prefix in a decoded input by the whole id, in one query for all of the
 * call's fields, so each tool (and each tool added later whose fields use the FactId Schema) takes
 * the short ids replies show. A whole id passes untouched (the tool answers fact_not_found itself);
 * a prefix no fact has is fact_not_found, one that two facts share is invalid_input, both naming the
 * field and never echoing it.
 */
export const resolveFactIdPrefixes = (tool: AnyTool) =>
(
  input: unknown
): Effect.Effect<unknown, FactNotFound | InvalidInput | DatabaseError, FactStore> => {
  const record = input as Record<string, unknown>
  const short = referenceFields(tool).flatMap((field) => {
    const value = record[field]
    return typeof value === "string" && value.length < wholeIdLength ? [[field, value] as const] : []
  })
  if (short.length === 0) return Effect.succeed(input)
  return Effect.flatMap(FactStore, (store) => store.idsStartingWith(short.map(([, prefix]) => prefix))).pipe(
    Effect.flatMap((found): Effect.Effect<unknown, FactNotFound | InvalidInput> => {
      const resolved = { ...record }
      for (const [field, prefix] of short) {
        const ids = found.get(prefix) ?? []
        if (ids.length === 0) {
          return Effect.fail(new FactNotFound({ message: `${field}: no fact has an id starting with that` }))
        }
        if (ids.length > 1) {
          return Effect.fail(
            new InvalidInput({
              message: `${field}: more than one fact has an id starting with that; give more characters or the whole id`
            })
          )
        }
        resolved[field] = ids[0]
      }
      return Effect.succeed(resolved)
    })
  )
}
