/// <reference lib="dom" />
/**
 * The view side of MCP Apps (SEP-1865, 2026-01-26): JSON-RPC 2.0 over postMessage with the host
 * that framed the app. The handshake (ui/initialize, then ui/notifications/initialized), the tool
 * input and result the host pushes, tools/call proxied by the host to Relay, the size the app asks
 * for, and answers to the host's teardown and ping. The spec's own few lines, not the ext-apps App
 * class: bundled, that class and its zod and MCP client weigh ~665 KB against this file's ~2 KB,
 * and every host reads the app's HTML. Only messages from the parent window are read.
 */
import type { McpUiInitializeResult } from "@modelcontextprotocol/ext-apps"

type Params = Record<string, unknown>

export interface ToolResult {
  readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: Params
  readonly isError?: boolean
}

export interface HostEvents {
  readonly toolInput: (args: Params) => void
  readonly toolResult: (result: ToolResult) => void
  readonly toolCancelled: () => void
}

export interface Host {
  readonly initialized: Promise<McpUiInitializeResult>
  readonly callTool: (name: string, args: Params) => Promise<ToolResult>
}

const protocolVersion = "2026-01-26"

const isObject = (v: unknown): v is Params => typeof v === "object" && v !== null && !Array.isArray(v)

export const connectHost = (appInfo: { name: string; version: string }, events: HostEvents): Host => {
  let nextId = 1
  const pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>()
  const post = (message: Params) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*")
  const request = (method: string, params: Params) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      post({ id, method, params })
    })

  window.addEventListener("message", (event) => {
    const m: unknown = event.data
    if (event.source !== window.parent || !isObject(m) || m.jsonrpc !== "2.0") return
    const { id, method, params } = m
    if (typeof method !== "string") {
      const waiting = typeof id === "number" ? pending.get(id) : undefined
      if (waiting === undefined) return
      pending.delete(id as number)
      if (isObject(m.error)) waiting.reject(new Error(String(m.error.message ?? "the host refused the request")))
      else waiting.resolve(m.result)
      return
    }
    if (id !== undefined) {
      // The host's requests: a teardown has nothing to save (the app only reads); anything else is unknown.
      const known = method === "ui/resource-teardown" || method === "ping"
      return post(known ? { id, result: {} } : { id, error: { code: -32601, message: `no method ${method}` } })
    }
    if (method === "ui/notifications/tool-input" && isObject(params) && isObject(params.arguments)) {
      events.toolInput(params.arguments)
    } else if (method === "ui/notifications/tool-result" && isObject(params)) {
      events.toolResult(params as ToolResult)
    } else if (method === "ui/notifications/tool-cancelled") {
      events.toolCancelled()
    }
  })

  const initialized = request("ui/initialize", { appInfo, appCapabilities: {}, protocolVersion }).then((result) => {
    post({ method: "ui/notifications/initialized", params: {} })
    return result as McpUiInitializeResult
  })

  // The host sizes the frame to the app (containerDimensions without a fixed height).
  let sent = ""
  new ResizeObserver(() => {
    const width = Math.ceil(document.documentElement.scrollWidth)
    const height = Math.ceil(document.documentElement.scrollHeight)
    if (`${width}x${height}` === sent) return
    sent = `${width}x${height}`
    void initialized.then(() => post({ method: "ui/notifications/size-changed", params: { width, height } }))
  }).observe(document.documentElement)

  return {
    initialized,
    callTool: (name, args) =>
      initialized.then(() => request("tools/call", { name, arguments: args }) as Promise<ToolResult>)
  }
}
