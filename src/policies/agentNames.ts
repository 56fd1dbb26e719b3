import { Effect, SchemaAST } from "effect"
import { AgentNameField } from "../domain/ids.js"
import { FactStore } from "../services/FactStore.js"
import type { AnyTool } from "../tools/Tool.js"
import { retryTransient } from "./retry.js"
import { inputProperties } from "./scanNames.js"

const isAgentName = (ast: SchemaAST.AST): boolean =>
  ast.annotations[AgentNameField] === true || (SchemaAST.isUnion(ast) && ast.types.some(isAgentName))

interface NameFields {
  /** Who writes, reads or holds (written_by of a save, my_name, claimed_by of a claim): recorded. */
  readonly own: ReadonlyArray<string>
  /** Optional names that only filter (written_by of a search, claimed_by of a list): looked up. */
  readonly filters: ReadonlyArray<string>
}

const fieldsOf = (tool: AnyTool): NameFields => {
  const names = inputProperties(tool).filter((p) => isAgentName(p.type))
  return {
    own: names.filter((p) => !p.isOptional).map((p) => String(p.name)),
    filters: names.filter((p) => p.isOptional).map((p) => String(p.name))
  }
}
const fieldsByTool = new WeakMap<AnyTool, NameFields>()

const nameFieldsOf = (tool: AnyTool) => {
  let fields = fieldsByTool.get(tool)
  if (fields === undefined) {
    fields = fieldsOf(tool)
    fieldsByTool.set(tool, fields)
  }
  return fields
}

/**
 * Every name a call brings becomes the spelling first written of it, compared without case
 * (layers/factStore/agentNames.ts): "Cursor" and "cursor" read from one briefing place, hold one
 * task and filter one writer's facts. A name that only filters is never recorded, so a search by a
 * name nobody wrote does not decide how that name is shown.
 */
export const canonicalNames = (tool: AnyTool) => (input: unknown) => {
  const { filters, own } = nameFieldsOf(tool)
  if (own.length === 0 && filters.length === 0) return Effect.succeed(input)
  const record = input as Record<string, unknown>
  const valuesOf = (fields: ReadonlyArray<string>) =>
    fields.flatMap((f) => typeof record[f] === "string" ? [record[f] as string] : [])
  const owned = valuesOf(own)
  const filtered = valuesOf(filters)
  if (owned.length === 0 && filtered.length === 0) return Effect.succeed(input)
  const none = Effect.succeed(new Map<string, string>())
  return Effect.flatMap(FactStore, (store) =>
    Effect.map(
      Effect.zip(
        owned.length === 0 ? none : store.shownNames(owned, true),
        filtered.length === 0 ? none : store.shownNames(filtered, false)
      ).pipe(
        retryTransient,
        // With the database unreachable the names go as given: the tool's own checks that need no
        // database (a secret in the content) still answer with their codes, and its statements fail.
        Effect.catchTag("DatabaseError", () => Effect.zip(none, none))
      ),
      ([ownShown, filterShown]) => {
        const out = { ...record }
        for (const f of own) if (typeof out[f] === "string") out[f] = ownShown.get(out[f] as string) ?? out[f]
        for (const f of filters) if (typeof out[f] === "string") out[f] = filterShown.get(out[f] as string) ?? out[f]
        return out as unknown
      }
    ))
}
