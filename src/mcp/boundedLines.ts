import { JSONRPCMessageSchema, type RequestId } from "@modelcontextprotocol/sdk/types.js"
import { Transform, type TransformCallback } from "node:stream"
import { idOf, maxNesting, nestsAtMost, topLevelId } from "./jsonShape.js"

/**
 * The largest request line Relay reads: the largest valid call (2,000 code points of content,
 * JSON-escaped, and short labels) is under 30 KiB, and replies are held to 1 MiB too.
 */
export const maxRequestBytes = 1024 * 1024

/** Of a line too long to read, this much of each end is kept: a JSON-RPC id sits at one of them. */
const endBytes = 256

const jsonString = String.raw`"(?:[^"\\]|\\.)*"`
const scalar = String.raw`(?:${jsonString}|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)`
const idValue = String.raw`(${jsonString}|-?\d+)`
/** `{"jsonrpc":"2.0","method":"x","id":7,...`: an id after only scalar members is a top-level one. */
const idAtHead = new RegExp(String.raw`^\s*\{(?:\s*${jsonString}\s*:\s*${scalar}\s*,)*?\s*"id"\s*:\s*${idValue}\s*[,}]`)
/**
 * `...,"jsonrpc":"2.0","id":7}` (the SDK client's order): only scalar members between the id and
 * the last brace, so the id is a member of the outermost object. Inside a JSON string every `"` is
 * escaped, so `,"id"` or `{"id"` cannot start inside one.
 */
const idAtTail = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${idValue}(?:\s*,\s*${jsonString}\s*:\s*${scalar})*\s*\}\s*$`)

/** The request id of a line known only by its two ends, when one of them shows it. */
export const requestIdOf = (head: string, tail: string): RequestId | undefined => {
  const found = idAtHead.exec(head)?.[1] ?? idAtTail.exec(tail)?.[1]
  if (found === undefined) return undefined
  const id: unknown = JSON.parse(found)
  return typeof id === "string" || Number.isSafeInteger(id) ? id as RequestId : undefined
}

/** Why a whole line is not handed on: nested past maxNesting, or JSON that is no JSON-RPC message. */
export type Unreadable = "too_deep" | "not_json" | "not_a_message"

/**
 * Whether a line the SDK would refuse (or choke on), and the request id it carries where that can be
 * read. The SDK's transport hands such a line to onerror without it, so its answer had `id: null` and
 * the client waited for its own id forever (params that are nested arrays); a line nested thousands
 * deep overflowed the stack in decoding. Text that is not JSON is answered with the id its start
 * shows, if any (a line cut short still names the request the client waits on).
 */
export const unreadable = (
  text: string
): { readonly why: Unreadable; readonly id: RequestId | undefined } | undefined => {
  if (text.trim() === "") return undefined
  if (!nestsAtMost(text, maxNesting)) return { why: "too_deep", id: topLevelId(text) }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { why: "not_json", id: topLevelId(text) }
  }
  if (JSONRPCMessageSchema.safeParse(parsed).success) return undefined
  const id = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
    ? idOf((parsed as { readonly id?: unknown }).id)
    : undefined
  return { why: "not_a_message", id }
}

/**
 * Passes stdin on line by line, each line whole and at most `maxBytes` long, and a JSON-RPC message
 * nested at most maxNesting deep (others are reported with their id, `unreadable`). A longer line is
 * dropped as it streams (only its two ends are kept, so memory stays bounded however long it is)
 * and reported with its id once its newline arrives; the lines after it are read as usual. A line
 * cut off by the end of stdin is dropped: it is not a message, and nobody waits for its answer.
 *
 * Why not the SDK transport's own cap: on an oversized line it closes itself (1.32.2,
 * `StdioServerTransport._ondata`), and the session is over for the client without a word.
 */
export class BoundedLines extends Transform {
  #pending: Array<Buffer> = []
  #pendingBytes = 0
  #dropping: { head: Buffer; tail: Buffer; bytes: number } | undefined

  constructor(
    private readonly maxBytes: number,
    private readonly onOversized: (id: RequestId | undefined, bytes: number) => void,
    /** Without it, every line is passed on as it is. */
    private readonly onUnreadable?: (id: RequestId | undefined, why: Unreadable) => void
  ) {
    super()
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start)
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline)
      this.#take(piece)
      if (newline === -1) break
      this.#endLine()
      start = newline + 1
    }
    done()
  }

  #take(piece: Buffer) {
    if (this.#dropping !== undefined) {
      this.#dropping.tail = lastBytes(Buffer.concat([this.#dropping.tail, piece]))
      this.#dropping.bytes += piece.length
    } else if (this.#pendingBytes + piece.length > this.maxBytes) {
      const seen = Buffer.concat([...this.#pending, piece])
      this.#dropping = { head: Buffer.from(seen.subarray(0, endBytes)), tail: lastBytes(seen), bytes: seen.length }
      this.#pending = []
      this.#pendingBytes = 0
    } else if (piece.length > 0) {
      // Copied: a slice would keep the whole chunk it came from alive.
      this.#pending.push(Buffer.from(piece))
      this.#pendingBytes += piece.length
    }
  }

  #endLine() {
    const dropped = this.#dropping
    if (dropped !== undefined) {
      this.#dropping = undefined
      this.onOversized(requestIdOf(dropped.head.toString("utf8"), dropped.tail.toString("utf8")), dropped.bytes)
      return
    }
    const line = Buffer.concat(this.#pending)
    this.#pending = []
    this.#pendingBytes = 0
    const check = this.onUnreadable
    const refused = check === undefined ? undefined : unreadable(line.toString("utf8"))
    if (refused !== undefined) return check!(refused.id, refused.why)
    // One push a line, so the SDK's read buffer never holds more than one line.
    this.push(Buffer.concat([line, lineEnd]))
  }
}

const lineEnd = Buffer.from("\n")
const lastBytes = (b: Buffer) => Buffer.from(b.subarray(Math.max(0, b.length - endBytes)))
