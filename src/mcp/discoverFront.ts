import { appsServerExtension } from "../apps/appsExtension.js"
import { instructions, listCache, serverInfo } from "./discovery.js"

/** The generations a 2026 client may be answered in (the v2 SDK's; test/mcp/discoverFront.test.ts holds them equal). */
const modern = ["2026-07-28"]
const metaKey = (k: string) => `io.modelcontextprotocol/${k}`

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The answer to a well-formed 2026 `server/discover` line, as the server's SDK would give it; null
 * for anything else (the server answers that itself, errors included).
 */
export const discoverAnswer = (line: string): string | null => {
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return null
  }
  if (!isObject(message) || message.jsonrpc !== "2.0" || message.method !== "server/discover") return null
  const id = message.id
  if (typeof id !== "string" && typeof id !== "number") return null
  const meta = isObject(message.params) ? message.params._meta : undefined
  if (!isObject(meta) || !modern.includes(meta[metaKey("protocolVersion")] as string)) return null
  const client = meta[metaKey("clientInfo")]
  if (!isObject(client) || typeof client.name !== "string" || typeof client.version !== "string") return null
  if (!isObject(meta[metaKey("clientCapabilities")])) return null
  return JSON.stringify({
    result: {
      supportedVersions: modern,
      capabilities: { tools: {}, prompts: {}, resources: {}, extensions: appsServerExtension },
      instructions,
      resultType: "complete",
      ...listCache,
      _meta: { [metaKey("serverInfo")]: serverInfo }
    },
    jsonrpc: "2.0",
    id
  })
}

/** The most a first line may hold before the front leaves it to the server. */
const firstLineMax = 64 * 1024

/**
 * A 2026 client on the SDK's stdio transport asks `server/discover` of a throwaway Relay process
 * before it starts the one it keeps, so every connect paid for two server starts. The first line on
 * stdin is read here, before the server's modules load: a well-formed discover is answered at once
 * from what the server would say; anything else, and everything after, goes back to stdin for the
 * server, unread.
 */
export const answerFirstDiscover = (
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stdout
): Promise<void> =>
  new Promise((resolve) => {
    let buffered = Buffer.alloc(0)
    const stop = () => {
      input.off("data", onData)
      input.off("end", onEnd)
    }
    const onEnd = () => {
      stop()
      resolve()
    }
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      const newline = buffered.indexOf(10)
      if (newline < 0 && buffered.length < firstLineMax) return
      stop()
      input.pause()
      const answer = newline < 0 ? null : discoverAnswer(buffered.subarray(0, newline).toString("utf8"))
      const rest = answer === null ? buffered : buffered.subarray(newline + 1)
      if (rest.length > 0) input.unshift(rest)
      if (answer === null) resolve()
      else output.write(`${answer}\n`, () => resolve())
    }
    input.on("data", onData)
    input.on("end", onEnd)
  })
