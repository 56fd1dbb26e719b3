import { Forbidden } from "../domain/errors.js"
import type { Caller } from "../domain/tokens.js"
import type { AnyTool } from "../tools/Tool.js"
import { toFailureResult } from "./callTool.js"
import { type CallGate, listing } from "./mcpHandlers.js"

/**
 * The fields that name who writes, decides or reads. Over HTTP they are the token's name: a client
 * may leave them out (the server fills them in) or send that same name; any other name is refused.
 */
const identityFields = ["written_by", "resolved_by", "my_name", "retracted_by", "confirmed_by", "claimed_by"] as const

/** Fields that name the caller in a write but are filters in a read (list_tasks' claimed_by). */
const filterFields: ReadonlyArray<string> = ["written_by", "claimed_by"]

const propertiesOf = (schema: { readonly [k: string]: unknown }) =>
  Object.keys((schema["properties"] ?? {}) as Record<string, unknown>)

/**
 * A read tool's `written_by` (or `claimed_by`) is a filter (current_state, search: "facts written by this name"), not
 * the caller's identity: filling it from the token made a reader see only their own facts.
 */
const identityFieldsOf = new Map(listing.map((t) => [
  t.name,
  identityFields.filter((f) =>
    propertiesOf(t.inputSchema).includes(f) && !(filterFields.includes(f) && t.annotations.readOnlyHint)
  )
]))

/**
 * The HTTP listing: the same tools, with the identity fields optional (no longer `required`) and
 * described as set from the token. The decoding Schema is unchanged: the gate fills the field in first.
 */
export const httpListing = listing.map((tool) => {
  const own = identityFieldsOf.get(tool.name) ?? []
  if (own.length === 0) return tool
  const schema = tool.inputSchema as { readonly [k: string]: unknown }
  const properties = schema["properties"] as Record<string, Record<string, unknown>>
  return {
    ...tool,
    inputSchema: {
      ...tool.inputSchema,
      required: ((schema["required"] ?? []) as ReadonlyArray<string>).filter((f) => !own.includes(f as never)),
      properties: Object.fromEntries(
        Object.entries(properties).map(([k, v]) =>
          own.includes(k as never)
            ? [k, { ...v, description: "Set by the server from your token's name: leave it out" }]
            : [k, v]
        )
      )
    }
  }
})

const refuse = (message: string) => ({ refused: toFailureResult(null, new Forbidden({ message })) })

/**
 * Checks a call against the token: a read-only token may call only read-only tools, and the author
 * fields become the token's name. A differing name is `forbidden` rather than `invalid_input`: the
 * input is well formed, the caller just may not write as someone else.
 */
export const teamGate = (caller: Caller): CallGate => ({
  listing: httpListing,
  self: caller.name,
  admit: (tool: AnyTool, args: unknown) => {
    if (caller.readOnly && !tool.annotations.readOnlyHint) {
      return refuse(`${tool.name}: this token is read-only; ask for a token that may write`)
    }
    const own = identityFieldsOf.get(tool.name) ?? []
    if (own.length === 0) return { args }
    // Anything not an object fails decoding with its usual invalid_input; arrays too.
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) return { args }
    const given = (args ?? {}) as Record<string, unknown>
    for (const field of own) {
      const value = given[field]
      if (value !== undefined && value !== caller.name) {
        return refuse(`${field}: over HTTP it is your token's name (${caller.name}); leave it out`)
      }
    }
    return { args: { ...given, ...Object.fromEntries(own.map((f) => [f, caller.name])) } }
  }
})
