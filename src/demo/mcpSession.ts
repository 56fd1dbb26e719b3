/**
 * dist/server.js driven through the MCP SDK's own Client over stdio, as Claude Desktop runs it: the
 * v2 client pinned to MCP 2026-07-28 (server/discover, then the version in each request's `_meta`).
 * Each call's structuredContent is decoded with the tool's output Schema, so the demo checks the
 * contract as it goes.
 */
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect, Schema } from "effect"

export class DemoFailed extends Schema.TaggedError<DemoFailed>()("DemoFailed", {
  step: Schema.String,
  message: Schema.String
}) {}

export interface McpSession {
  readonly toolNames: ReadonlyArray<string>
  /** The protocol version the connection speaks. */
  readonly protocolVersion: string
  readonly call: <A, I>(
    step: string,
    tool: string,
    args: Record<string, unknown>,
    output: Schema.Schema<A, I>
  ) => Effect.Effect<A, DemoFailed>
  /** What the server wrote to stderr so far (its log). */
  readonly serverLog: () => string
}

export interface ServerCommand {
  readonly nodePath: string
  readonly serverPath: string
  readonly env: Record<string, string>
}

/**
 * The SDK's stdio transport, subclassed so that the client asks `server/discover` of the process it
 * keeps (the SDK probes in place for a subclass) rather than of a second process it starts and ends
 * first: Relay answers discover, so one process start is enough.
 */
class InPlaceStdio extends StdioClientTransport {}

const detail = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** Spawns the server and connects; the client is closed (and the server exits) with the scope. */
export const connectServer = Effect.fn("relay/demo/connectServer")(function*(command: ServerCommand) {
  let log = ""
  const client = new Client({ name: "relay-demo", version: "0.1.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } }
  })
  const transport = new InPlaceStdio({
    command: command.nodePath,
    args: [command.serverPath],
    // The demo checks each step against whole ids and stamps, so it asks for the full JSON.
    env: { ...command.env, RELAY_STRUCTURED_CONTENT: "full" },
    stderr: "pipe"
  })
  transport.stderr?.on("data", (chunk: Buffer) => {
    log += chunk.toString()
  })
  const serverLog = () => log
  yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () => client.connect(transport),
      catch: (e) =>
        new DemoFailed({ step: "starting dist/server.js", message: `dist/server.js did not start: ${detail(e)}` })
    }),
    () => Effect.promise(() => client.close().catch(() => undefined))
  )
  const listed = yield* Effect.tryPromise({
    try: () => client.listTools(),
    catch: (e) => new DemoFailed({ step: "listing the tools", message: detail(e) })
  })

  const call = <A, I>(step: string, tool: string, args: Record<string, unknown>, output: Schema.Schema<A, I>) =>
    Effect.tryPromise({
      try: () => client.callTool({ name: tool, arguments: args }),
      catch: (e) => new DemoFailed({ step, message: `${tool} did not answer: ${detail(e)}` })
    }).pipe(
      Effect.flatMap((result) => {
        if (result.isError === true) {
          const content = result.content as Array<{ type: string; text?: string }>
          const text = content.find((c) => c.type === "text")?.text ?? "an error"
          return Effect.fail(new DemoFailed({ step, message: `${tool} answered ${text}` }))
        }
        return Schema.decodeUnknown(output)(result.structuredContent).pipe(
          Effect.mapError(() =>
            new DemoFailed({ step, message: `${tool} returned a result that does not match its output schema` })
          )
        )
      })
    )

  return {
    toolNames: listed.tools.map((t) => t.name),
    protocolVersion: client.getNegotiatedProtocolVersion() ?? "unknown",
    call,
    serverLog
  } satisfies McpSession
})
