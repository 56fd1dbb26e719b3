/**
 * A tiny RESP2 exchange over a unix socket: authenticate, send a few commands
 * pipelined, read exactly that many replies, close. Enough for health checks,
 * MODULE LIST and SHUTDOWN; the application itself uses the `falkordb` client.
 */
import { Duration, Effect, Redacted, Schema } from "effect"
import * as Net from "node:net"

export class RespReplyError {
  readonly _tag = "RespReplyError"
  constructor(readonly message: string) {}
}

export type RespValue = string | number | null | RespReplyError | ReadonlyArray<RespValue>

/** The socket did not answer: absent, refused, closed early or too slow. */
export class RespUnreachable extends Schema.TaggedError<RespUnreachable>()("RespUnreachable", {
  code: Schema.String
}) {}

const encode = (args: ReadonlyArray<string>): string =>
  `*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")

/** Parses one reply at `offset`; undefined when the buffer is incomplete. */
const parse = (buf: Buffer, offset: number): readonly [RespValue, number] | undefined => {
  const eol = buf.indexOf("\r\n", offset)
  if (eol === -1) return undefined
  const type = String.fromCharCode(buf[offset] ?? 0)
  const line = buf.toString("utf8", offset + 1, eol)
  const next = eol + 2
  switch (type) {
    case "+":
      return [line, next]
    case "-":
      return [new RespReplyError(line), next]
    case ":":
      return [Number(line), next]
    case "$": {
      const len = Number(line)
      if (len < 0) return [null, next]
      if (buf.length < next + len + 2) return undefined
      return [buf.toString("utf8", next, next + len), next + len + 2]
    }
    case "*": {
      const count = Number(line)
      if (count < 0) return [null, next]
      const items: Array<RespValue> = []
      let at = next
      for (let i = 0; i < count; i++) {
        const item = parse(buf, at)
        if (item === undefined) return undefined
        items.push(item[0])
        at = item[1]
      }
      return [items, at]
    }
    default:
      return [new RespReplyError(`unexpected RESP type ${type}`), buf.length]
  }
}

/**
 * Sends `AUTH <password>` then `commands`; answers the replies to `commands`
 * (the AUTH reply is checked: a rejected password becomes a RespReplyError in
 * every position). Fails with RespUnreachable when nothing answers in time.
 */
export const respCall = (
  /** A unix socket path, or a TCP address (the sentinels of a replicated deployment). */
  target: string | { readonly host: string; readonly port: number },
  /** null: send no AUTH (a sentinel without a password). */
  password: Redacted.Redacted<string> | null,
  commands: ReadonlyArray<ReadonlyArray<string>>,
  timeout: Duration.DurationInput = "2 seconds"
): Effect.Effect<ReadonlyArray<RespValue>, RespUnreachable> =>
  Effect.async<ReadonlyArray<RespValue>, RespUnreachable>((resume) => {
    const auth = password === null ? [] : [encode(["AUTH", Redacted.value(password)])]
    const expected = commands.length + auth.length
    let buf = Buffer.alloc(0)
    let done = false
    const socket = typeof target === "string" ? Net.createConnection({ path: target }) : Net.createConnection(target)
    const finish = (effect: Effect.Effect<ReadonlyArray<RespValue>, RespUnreachable>) => {
      if (done) return
      done = true
      socket.destroy()
      resume(effect)
    }
    socket.on("connect", () => {
      socket.write(auth.join("") + commands.map(encode).join(""))
    })
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk])
      const replies: Array<RespValue> = []
      let at = 0
      while (replies.length < expected) {
        const r = parse(buf, at)
        if (r === undefined) return
        replies.push(r[0])
        at = r[1]
      }
      if (auth.length === 0) return finish(Effect.succeed(replies))
      const [authReply, ...rest] = replies
      finish(
        Effect.succeed(authReply instanceof RespReplyError ? rest.map(() => authReply) : rest)
      )
    })
    socket.on("error", (err: NodeJS.ErrnoException) =>
      finish(Effect.fail(new RespUnreachable({ code: err.code ?? "ESOCKET" }))))
    socket.on("close", () => finish(Effect.fail(new RespUnreachable({ code: "ECLOSED" }))))
    return Effect.sync(() => {
      done = true
      socket.destroy()
    })
  }).pipe(
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new RespUnreachable({ code: "ETIMEDOUT" }) })
  )
