import { JSONSchema, Option, Schema, SchemaAST } from "effect"
import { ErrorOutput } from "../domain/outputs.js"
import type { AnyTool } from "../tools/Tool.js"

type JsonObject = { readonly type: "object"; readonly [k: string]: unknown }
type Node = Record<string, unknown>

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * Replaces each `$ref` to `#/$defs/<name>` by the definition itself (its own keywords win): several MCP
 * clients do not resolve references, and Relay's schemas are not recursive, so nothing is lost.
 */
const inline = (node: unknown, defs: Record<string, unknown>): unknown => {
  if (Array.isArray(node)) return node.map((n) => inline(n, defs))
  if (typeof node !== "object" || node === null) return node
  const { $ref, ...rest } = node as Record<string, unknown>
  const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v, defs)]))
  return typeof $ref === "string" && $ref.startsWith("#/$defs/")
    ? { ...(inline(defs[$ref.slice("#/$defs/".length)], defs) as Record<string, unknown>), ...own }
    : own
}

/**
 * Effect titles a node after the filter that made it: "between(1, 100)", "maxLength(512)",
 * "pattern(/.../)", "int", "lowercased", "nonEmptyString". They name library internals, and clients
 * show them as the field's label. Relay labels its fields with descriptions, never titles, so a
 * title of that shape (one word, maybe with arguments) is dropped wherever it appears.
 */
const derivedTitle = /^[A-Za-z][A-Za-z0-9]*(\([\s\S]*\))?$/

/** Keywords that only say something about a value, so members of an allOf may differ on them. */
const annotationKeywords = new Set(["title", "description", "default", "examples"])

/**
 * Effect wraps a field that carries annotations of its own in `{ allOf: [<the type>], description }`.
 * Clients that look for `type` at the top (MCP Inspector) then treat the field as a string and send
 * "5" for a limit. The members of such an allOf are folded into one node (the outer annotations
 * win); an allOf whose members disagree on a validation keyword is left as it is.
 */
const foldAllOf = (node: Node): Node => {
  const { allOf, ...outer } = node
  if (!Array.isArray(allOf) || !allOf.every(isNode)) return node
  const merged: Node = {}
  for (const member of [...allOf, outer]) {
    for (const [k, v] of Object.entries(member)) {
      const clash = k in merged && !annotationKeywords.has(k) && JSON.stringify(merged[k]) !== JSON.stringify(v)
      if (clash) return node
      merged[k] = v
    }
  }
  return merged
}

/**
 * A union whose members all have a type gets their types at the top too, for the same clients. Where
 * the members' types differ, an input schema keeps the plain anyOf: a list of types (`["string",
 * "array"]`) is refused by Ajv in strict mode and by Gemini's function declarations, whose `type` is
 * one name. Output schemas are read by MCP clients' validators only, which take the list.
 */
const typeOfUnion = (node: Node, typeLists: boolean): Node => {
  const { anyOf, type } = node
  if (type !== undefined || !Array.isArray(anyOf) || !anyOf.every((m) => isNode(m) && typeof m.type === "string")) {
    return node
  }
  const types = [...new Set(anyOf.map((m) => (m as Node).type as string))]
  if (types.length === 1) return { type: types[0], ...node }
  return typeLists ? { type: types, ...node } : node
}

/** Tidies every node, innermost first. A field named "title" or "allOf" is an object and stays. */
const tidy = (node: unknown, typeLists: boolean): unknown => {
  if (Array.isArray(node)) return node.map((n) => tidy(n, typeLists))
  if (!isNode(node)) return node
  const children = Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === "title" && typeof v === "string" && derivedTitle.test(v)))
      .map(([k, v]) => [k, tidy(v, typeLists)])
  )
  const folded = typeOfUnion(foldAllOf(children), typeLists)
  // Folding can bring a derived title up from a member.
  const { title, ...rest } = folded
  return typeof title === "string" && derivedTitle.test(title) ? rest : folded
}

const derive = (schema: Schema.Schema.Any, typeLists: boolean): Record<string, unknown> => {
  const { $defs, $schema: _ignored, ...rest } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return tidy(inline(rest, ($defs ?? {}) as Record<string, unknown>), typeLists) as Record<string, unknown>
}

/**
 * The defaults of `Schema.optionalWith(..., { default })` fields, by field name, as JSON. Effect keeps
 * a default in the decoding and leaves it out of the JSON Schema, so each one is found by asking the
 * decoding what it puts in place of the missing key, then encoding that with the field's own Schema.
 */
const defaultsOf = (schema: Schema.Schema.Any): ReadonlyMap<string, unknown> => {
  // Under a filter of the whole input (rules that combine fields), the struct's own defaults.
  let ast = schema.ast
  while (SchemaAST.isRefinement(ast)) ast = ast.from
  const found = new Map<string, unknown>()
  if (!SchemaAST.isTransformation(ast) || !SchemaAST.isTypeLiteralTransformation(ast.transformation)) return found
  if (!SchemaAST.isTypeLiteral(ast.from)) return found
  for (const field of ast.transformation.propertySignatureTransformations) {
    const encoded = ast.from.propertySignatures.find((p) => p.name === field.from)
    const filled = field.decode(Option.none())
    if (typeof field.from !== "string" || encoded === undefined || Option.isNone(filled)) continue
    const json = Schema.encodeUnknownOption(Schema.make(encoded.type))(filled.value)
    if (Option.isSome(json)) found.set(field.from, json.value)
  }
  return found
}

const withDefaults = (derived: Record<string, unknown>, defaults: ReadonlyMap<string, unknown>) => {
  const properties = derived.properties
  if (!isNode(properties) || defaults.size === 0) return derived
  const filled = Object.fromEntries(
    Object.entries(properties).map(([name, field]) =>
      isNode(field) && !("default" in field) && defaults.has(name)
        ? [name, { ...field, default: defaults.get(name) }]
        : [name, field]
    )
  )
  return { ...derived, properties: filled }
}

/**
 * A model pays for every token of a listing, on every turn, so what the listing would repeat for
 * nothing is left out of what is advertised; decoding still applies all of it, and a refused value
 * gets `invalid_input` with a message naming the field and the rule:
 * - the regexes of names, ids and stamps (each field's description says the rule in words);
 * - a `minimum` or `minLength` of 1 (a page of no items or an empty text is nothing a model asks for);
 * - `additionalProperties: false` (a field the tool does not have is refused by name) and an empty
 *   `required`.
 * Types, maxima, maximum lengths and defaults stay: they say what a model could not guess.
 */
const lean = (schema: Record<string, unknown>): Record<string, unknown> => {
  const { required, properties, additionalProperties: _closed, ...rest } = schema
  const fields = isNode(properties)
    ? Object.fromEntries(
      Object.entries(properties).map(([name, field]) => {
        if (!isNode(field)) return [name, field]
        const { pattern: _pattern, minimum, minLength, ...kept } = field
        return [name, {
          ...kept,
          ...(minimum === undefined || minimum === 1 ? {} : { minimum }),
          ...(minLength === undefined || minLength === 1 ? {} : { minLength })
        }]
      })
    )
    : properties
  return {
    ...rest,
    ...(Array.isArray(required) && required.length === 0 ? {} : { required }),
    ...(properties === undefined ? {} : { properties: fields })
  }
}

/**
 * What clients see as a tool's inputSchema: derived from the same Schema that decodes the call, with
 * a top-level `type` and the `default` on every field that has one, and no titles of Effect's own.
 */
export const inputJsonSchema = (tool: AnyTool): JsonObject => {
  const schema: Node = { type: "object", ...lean(withDefaults(derive(tool.input, false), defaultsOf(tool.input))) }
  const unlisted = tool.unlisted ?? []
  if (unlisted.length === 0 || !isNode(schema.properties)) return schema as JsonObject
  return {
    ...schema,
    type: "object",
    properties: Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !unlisted.includes(k)))
  }
}

/**
 * A failed call still carries structuredContent (`{ error }`), and clients check it against the
 * declared outputSchema, so the declared schema is "the result, or the error shape".
 */
export const outputJsonSchema = (tool: AnyTool): JsonObject => ({
  type: "object",
  ...derive(Schema.Union(tool.output, ErrorOutput), true)
})
