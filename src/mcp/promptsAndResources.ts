import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { Schema } from "effect"
import { Forbidden } from "../domain/errors.js"
import { threadMermaid } from "../domain/mermaid.js"
import { getBriefing } from "../tools/getBriefing.js"
import { getContext } from "../tools/getContext.js"
import { getThread } from "../tools/getThread.js"
import type { AnyTool } from "../tools/Tool.js"
import { toFailureResult, type ToolResult } from "./callTool.js"
import { echoName, quoteName, resourceNotFound2025, RpcFailure } from "./rpcErrors.js"

/**
 * MCP prompts and resources: memory for clients that load a prompt or attach a resource rather than
 * call a tool. Each is answered by a tool (the briefing, or the context of one fact) through the same
 * gate, policies and reply guard as a tool call; only the shape of the answer differs.
 */

/** How the edge runs a tool for a prompt or resource: gated and through the policies, as tools/call does. */
export interface Calls {
  readonly invoke: (tool: AnyTool, args: unknown) => Promise<ToolResult>
  /** An `invalid_input` refusal that still spends the rate limit, as an unknown tool does. */
  readonly refuse: (what: string, message: string) => Promise<ToolResult>
  /** Over HTTP, the token's name; undefined on stdio. */
  readonly self: string | undefined
}

/**
 * -32002 is MCP 2025's "resource not found"; the v2 SDK sends it as 2026's -32602 to both
 * generations, and rpcErrors.ts `in2025Codes` puts it back for a 2025 client.
 */
const resourceNotFound = resourceNotFound2025

const rpcCode: Record<string, number> = {
  invalid_input: ErrorCode.InvalidParams,
  forbidden: ErrorCode.InvalidParams,
  fact_not_found: resourceNotFound
}

interface Failure {
  readonly code: string
  readonly message: string
}

const failureOf = (result: ToolResult): Failure | undefined =>
  result.isError === true ? (result.structuredContent as { error: Failure }).error : undefined

/**
 * A tool's answer, or the RpcFailure for its failure (`data.code` is the contract code), with the
 * tool's field names put as the caller sent them (a prompt's `name`, a resource's `uri`) and, where
 * given, a fixed message for a code (an unknown fact is "no fact with that id": the address is the
 * caller's own text).
 */
const unwrap = (
  result: ToolResult,
  fields: Readonly<Record<string, string>>,
  messages: Readonly<Record<string, string>> = {}
): ToolResult => {
  const error = failureOf(result)
  if (error === undefined) return result
  const field = /^([a-z_]+):/.exec(error.message)?.[1]
  const own = field === undefined ? undefined : fields[field]
  const message = messages[error.code] ?? (own === undefined ? error.message : own + error.message.slice(field!.length))
  throw new RpcFailure(rpcCode[error.code] ?? ErrorCode.InternalError, `${error.code}: ${message}`, {
    code: error.code
  })
}

/**
 * A tool's answer as its output Schema reads it: structuredContent is that Schema's encoding, so
 * the resource gets the tool's own type (a reply of another shape is a defect, reported as internal).
 */
const outputOf = <O, OE>(tool: { readonly output: Schema.Schema<O, OE> }, result: ToolResult): O =>
  Schema.decodeUnknownSync(tool.output)(result.structuredContent)

/** The start-session prompt's budget, as max_tokens of the briefing it renders. */
const promptTokens = 1500

export const startSession = {
  name: "start-session",
  title: "Start a session with Relay's briefing",
  description: "What other assistants saved and decided since your last briefing, and the open conflicts, " +
    "ready to read. Continues where your name's last briefing ended (the first covers 7 days)."
}

export const promptListing = (self: string | undefined) => [{
  ...startSession,
  arguments: [{
    name: "name",
    description: self === undefined
      ? "Your assistant name, as you pass it in written_by and my_name"
      : "Set by the server from your token's name: leave it out",
    required: self === undefined
  }]
}]

export const getPrompt = async (calls: Calls, name: string, args: Readonly<Record<string, string>> | undefined) => {
  if (name !== startSession.name) {
    return unwrap(
      await calls.refuse("prompt", `name: there is no prompt called ${quoteName(name)}`),
      {}
    )
  }
  const unknown = Object.keys(args ?? {}).find((k) => k !== "name")
  if (unknown !== undefined) {
    return unwrap(
      await calls.refuse("prompt argument", `${echoName(unknown)}: is not an argument of this prompt`),
      {}
    )
  }
  const given = args?.["name"]
  // Within about 1,500 tokens (issue 41): decisions, conflicts and tasks first, then the facts that fit.
  const result = unwrap(
    await calls.invoke(
      getBriefing,
      given === undefined ? { max_tokens: promptTokens } : { my_name: given, max_tokens: promptTokens }
    ),
    {
      my_name: "name"
    }
  )
  const text = result.content[0]?.text ?? ""
  return {
    description: startSession.description,
    messages: [{
      role: "user" as const,
      content: {
        type: "text" as const,
        text:
          "Relay briefing: what other assistants saved and decided since your last briefing. Read it before you start.\n" +
          text
      }
    }]
  }
}

const factTemplate = "relay://fact/{id}"
const briefingTemplate = "relay://briefing/{name}"
const threadTemplate = "relay://thread/{id}"

export const resourceTemplates = [
  {
    uriTemplate: factTemplate,
    name: "fact",
    title: "A fact in Relay",
    description: "One fact as JSON: its text, author, session, parent and status.",
    mimeType: "application/json"
  },
  {
    uriTemplate: briefingTemplate,
    name: "briefing",
    title: "Your briefing",
    description: "The briefing for this name, as text: what others saved and decided since its last briefing " +
      "(reading it moves the name's briefing cursor, as relay_get_briefing without since does).",
    mimeType: "text/plain"
  },
  {
    uriTemplate: threadTemplate,
    name: "thread",
    title: "A thread as a diagram",
    description: "The thread a fact belongs to (the tree under its root) as a Mermaid flowchart: facts by " +
      "status, what builds on what, decisions and forks; the first 200 facts.",
    mimeType: "text/vnd.mermaid"
  }
]

/** Over HTTP the caller's own briefing is a concrete resource; on stdio the name is not known. */
export const resourceListing = (self: string | undefined) =>
  self === undefined ? [] : [{
    uri: `relay://briefing/${encodeURIComponent(self)}`,
    name: "briefing",
    title: "Your briefing",
    description: "What others saved and decided since your last briefing.",
    mimeType: "text/plain"
  }]

const factUri = /^relay:\/\/fact\/([^/?#]*)$/
const briefingUri = /^relay:\/\/briefing\/([^/?#]*)$/
const threadUri = /^relay:\/\/thread\/([^/?#]*)$/

const decoded = (part: string): string | undefined => {
  try {
    return decodeURIComponent(part)
  } catch {
    return undefined
  }
}

const badUri = "uri: must be relay://fact/{id}, relay://thread/{id} or relay://briefing/{name}"

export const readResource = async (calls: Calls, uri: string) => {
  const fact = factUri.exec(uri)
  const briefing = briefingUri.exec(uri)
  const thread = threadUri.exec(uri)
  const part = decoded((fact ?? briefing ?? thread)?.[1] ?? "")
  if ((fact === null && briefing === null && thread === null) || part === undefined) {
    // Through the policies like any read; an address Relay does not serve is "not found".
    const refused = await calls.refuse("resource", badUri)
    if (failureOf(refused)?.code !== "invalid_input") unwrap(refused, {})
    throw new RpcFailure(resourceNotFound, `invalid_input: ${badUri}`, { code: "invalid_input" })
  }
  if (fact !== null) {
    const result = unwrap(await calls.invoke(getContext, { fact_id: part, limit: 1 }), { fact_id: "uri" }, {
      fact_not_found: "no fact with that id"
    })
    const chain = outputOf(getContext, result).chain
    return {
      contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ fact: chain[chain.length - 1] }) }]
    }
  }
  if (thread !== null) {
    const result = unwrap(await calls.invoke(getThread, { fact_id: part }), { fact_id: "uri" }, {
      fact_not_found: "no fact with that id"
    })
    const page = outputOf(getThread, result)
    return {
      contents: [{
        uri,
        mimeType: "text/vnd.mermaid",
        text: threadMermaid(page.facts, page.decisions, page.next_cursor !== null)
      }]
    }
  }
  if (calls.self !== undefined && part !== calls.self) {
    unwrap(
      toFailureResult(
        null,
        new Forbidden({
          message: `uri: over HTTP you may read only your own briefing, relay://briefing/${
            encodeURIComponent(calls.self)
          }`
        })
      ),
      {}
    )
  }
  const result = unwrap(await calls.invoke(getBriefing, { my_name: part }), { my_name: "uri" })
  return { contents: [{ uri, mimeType: "text/plain", text: result.content[0]?.text ?? "" }] }
}
