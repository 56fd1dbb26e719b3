import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { RpcFailure } from "../mcp/rpcErrors.js"
import { packageDir } from "../packageDir.js"
import { detectConflicts } from "../tools/detectConflicts.js"
import { getContext } from "../tools/getContext.js"
import type { AnyTool } from "../tools/Tool.js"
import { viewThread } from "../tools/viewThread.js"

/**
 * MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`): the thread drawn in a host's chat. What the
 * server says about it lives here; the server edge (src/mcp/mcpHandlers.ts) adds it to tools/list,
 * resources/list and resources/read for a client that says it draws apps, and text stays every
 * tool's answer for the rest.
 */
export const threadAppUri = "ui://relay/thread"
export const appMimeType = "text/html;profile=mcp-app"
export const appsExtension = "io.modelcontextprotocol/ui"

/** What the server says in its capabilities (SEP-1724 extensions): it serves MCP Apps' HTML. */
export const appsServerExtension = { [appsExtension]: { mimeTypes: [appMimeType] } }

/** The tools whose answer the app draws: their listing names it (`_meta.ui.resourceUri`). */
const drawnTools: ReadonlySet<string> = new Set([getContext.name, detectConflicts.name])

/** Tools for the app alone: a host lists them to no model (`visibility: ["app"]`) and lets only the app call them. */
export const appOnlyTools: ReadonlyArray<AnyTool> = [viewThread]
const appOnly: ReadonlySet<string> = new Set(appOnlyTools.map((t) => t.name))
export const isAppOnly = (tool: AnyTool): boolean => appOnly.has(tool.name)

/** Whether the client's capabilities say it draws MCP Apps' HTML (the extension's `mimeTypes`). */
export const drawsApps = (capabilities: unknown): boolean => {
  const extensions = (capabilities as { extensions?: Record<string, { mimeTypes?: unknown }> } | undefined)
    ?.extensions
  const mimeTypes = extensions?.[appsExtension]?.mimeTypes
  return Array.isArray(mimeTypes) && mimeTypes.includes(appMimeType)
}

/**
 * A listing as a host that draws apps reads it: the drawn tools name the app (the deprecated flat
 * `ui/resourceUri` too, which hosts of the extension's first drafts read), and the app's own tools
 * follow, for the app only.
 */
export const withApps = <T extends { readonly name: string }>(
  listed: ReadonlyArray<T>,
  appTools: ReadonlyArray<T>
): Array<T & { readonly _meta?: Record<string, unknown> }> => [
  ...listed.map((t) =>
    drawnTools.has(t.name) ? { ...t, _meta: { ui: { resourceUri: threadAppUri }, "ui/resourceUri": threadAppUri } } : t
  ),
  ...appTools.map((t) => ({
    ...t,
    _meta: { ui: { resourceUri: threadAppUri, visibility: ["app"] }, "ui/resourceUri": threadAppUri }
  }))
]

const description = "The thread of a fact drawn in the chat: facts by status, what builds on what, forks and " +
  "decisions, with a panel for one fact's whole text. Read-only."

export const appResources = [{
  uri: threadAppUri,
  name: "thread-app",
  title: "A thread, drawn",
  description,
  mimeType: appMimeType
}]

/**
 * No network at all: the app reaches Relay only through the host. The document carries its own
 * stricter policy too (scripts/build-apps.mjs: its one script and one style by hash).
 */
const ui = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true
}

let html: string | undefined
/** The app's HTML, built by `npm run build` (scripts/build-apps.mjs) and read once. */
const appHtml = (): string => {
  try {
    html ??= readFileSync(join(packageDir, "dist", "apps", "thread.html"), "utf8")
    return html
  } catch {
    // Not the file system's message: it names the install's paths.
    throw new RpcFailure(ErrorCode.InternalError, "internal: the app is not built (npm run build)", {
      code: "internal"
    })
  }
}

export const isAppUri = (uri: string): boolean => uri === threadAppUri

export const readAppResource = (uri: string) => ({
  contents: [{ uri, mimeType: appMimeType, text: appHtml(), _meta: { ui } }]
})
