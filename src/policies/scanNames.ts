import { Effect, SchemaAST } from "effect"
import { NameField } from "../domain/ids.js"
import { SecretScanner } from "../services/SecretScanner.js"
import type { AnyTool } from "../tools/Tool.js"

const isName = (ast: SchemaAST.AST): boolean =>
  ast.annotations[NameField] === true || (SchemaAST.isUnion(ast) && ast.types.some(isName))

/** The struct under an input's transformations and refinements (rules that combine fields). */
const structOf = (ast: SchemaAST.AST): SchemaAST.AST =>
  SchemaAST.isTransformation(ast) || SchemaAST.isRefinement(ast) ? structOf(ast.from) : ast

/**
 * A tool's top-level input fields, from its input Schema (under a transformation, its encoded side;
 * under a filter, the struct it filters): every policy that finds fields by their marks reads them here.
 */
export const inputProperties = (tool: AnyTool): ReadonlyArray<SchemaAST.PropertySignature> => {
  const literal = structOf(tool.input.ast)
  return SchemaAST.isTypeLiteral(literal) ? literal.propertySignatures : []
}

/** The top-level input fields that hold a name (AgentName, SessionId), found once per tool from its input Schema. */
const fieldsOf = (tool: AnyTool): ReadonlyArray<string> =>
  inputProperties(tool).filter((p) => isName(p.type)).map((p) => String(p.name))
const fieldsByTool = new WeakMap<AnyTool, ReadonlyArray<string>>()

export const nameFields = (tool: AnyTool) => {
  let fields = fieldsByTool.get(tool)
  if (fields === undefined) {
    fields = fieldsOf(tool)
    fieldsByTool.set(tool, fields)
  }
  return fields
}

/**
 * Every name a call brings (written_by, claimed_by, session_id, ...) goes through the secret scanner
 * before the tool runs, whatever the tool: a name is stored and shown like content, and a credential
 * in one would reach the graph, every briefing and every export (a task's claimer did, issue 40).
 * Each tool whose fields use those Schemas is covered without a line of its own.
 */
export const scanNames = (tool: AnyTool) => (input: unknown) => {
  const record = input as Record<string, unknown>
  const names = nameFields(tool).flatMap((field) => {
    const value = record[field]
    return typeof value === "string" ? [[field, value] as const] : []
  })
  return names.length === 0
    ? Effect.succeed(input)
    : Effect.flatMap(
      SecretScanner,
      (scanner) =>
        Effect.as(Effect.forEach(names, ([field, value]) => scanner.check(field, value), { discard: true }), input)
    )
}
