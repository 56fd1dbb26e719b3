import type { FalkorDB } from "falkordb"

/**
 * FalkorDB's GRAPH.BULK endpoint (docs.falkordb.com/design/bulk_spec.html): nodes of one label, or
 * edges of one type, as binary blobs, without Cypher's plan, parameters and property maps. Into a
 * graph that exists already (no BEGIN) it keeps the graph's indexes up to date as a CREATE would.
 * An edge names its ends by their internal node ids.
 */
export type BulkValue = string | number | boolean | null | ReadonlyArray<BulkValue>

const NULL = 0
const BOOL = 1
const DOUBLE = 2
const STRING = 3
const LONG = 4
const ARRAY = 5

const sizeOf = (v: BulkValue): number => {
  if (v === null) return 1
  if (typeof v === "boolean") return 2
  if (typeof v === "number") return 9
  if (typeof v === "string") return 2 + Buffer.byteLength(v, "utf8")
  let n = 9
  for (const x of v) n += sizeOf(x)
  return n
}

const put = (b: Buffer, at: number, v: BulkValue): number => {
  if (v === null) {
    b[at] = NULL
    return at + 1
  }
  if (typeof v === "boolean") {
    b[at] = BOOL
    b[at + 1] = v ? 1 : 0
    return at + 2
  }
  if (typeof v === "number") {
    if (Number.isSafeInteger(v)) {
      b[at] = LONG
      b.writeBigInt64LE(BigInt(v), at + 1)
    } else {
      b[at] = DOUBLE
      b.writeDoubleLE(v, at + 1)
    }
    return at + 9
  }
  if (typeof v === "string") {
    // The format ends a string at its first NUL: one inside would cut it and misread the rest.
    if (v.includes("\0")) throw new Error("a bulk string holds a NUL")
    b[at] = STRING
    const end = at + 1 + b.write(v, at + 1, "utf8")
    b[end] = 0
    return end + 1
  }
  b[at] = ARRAY
  b.writeBigInt64LE(BigInt(v.length), at + 1)
  let next = at + 9
  for (const x of v) next = put(b, next, x)
  return next
}

const header = (name: string, properties: ReadonlyArray<string>): Buffer => {
  const parts = [name, ...properties].map((s) => Buffer.from(`${s}\0`, "utf8"))
  const count = Buffer.alloc(4)
  count.writeUInt32LE(properties.length)
  return Buffer.concat([parts[0]!, count, ...parts.slice(1)])
}

/** One label's nodes, each a row of values in `properties` order (null: not set). */
export const nodeBlob = (
  label: string,
  properties: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<BulkValue>>
) => {
  const head = header(label, properties)
  let size = head.length
  for (const row of rows) for (const v of row) size += sizeOf(v)
  const b = Buffer.allocUnsafe(size)
  head.copy(b)
  let at = head.length
  for (const row of rows) for (const v of row) at = put(b, at, v)
  return b
}

/** One type's edges, each [from node id, to node id, ...values in `properties` order]. */
export const edgeBlob = (
  type: string,
  properties: ReadonlyArray<string>,
  rows: ReadonlyArray<readonly [number, number, ...ReadonlyArray<BulkValue>]>
) => {
  const head = header(type, properties)
  let size = head.length
  for (const [, , ...values] of rows) {
    size += 16
    for (const v of values) size += sizeOf(v)
  }
  const b = Buffer.allocUnsafe(size)
  head.copy(b)
  let at = head.length
  for (const [from, to, ...values] of rows) {
    b.writeBigUInt64LE(BigInt(from), at)
    b.writeBigUInt64LE(BigInt(to), at + 8)
    at += 16
    for (const v of values) at = put(b, at, v)
  }
  return b
}

/** Sends one GRAPH.BULK of node blobs (`nodes` nodes in all) or of edge blobs into an existing graph. */
export const bulkInsert = async (
  client: FalkorDB,
  graph: string,
  part: { readonly nodes: number; readonly nodeBlobs: ReadonlyArray<Buffer> } | {
    readonly edges: number
    readonly edgeBlobs: ReadonlyArray<Buffer>
  }
) => {
  const connection = await client.connection
  const args = "nodes" in part
    ? [String(part.nodes), "0", String(part.nodeBlobs.length), "0", ...part.nodeBlobs]
    : ["0", String(part.edges), "0", String(part.edgeBlobs.length), ...part.edgeBlobs]
  return connection.sendCommand(["GRAPH.BULK", graph, ...args] as never)
}
