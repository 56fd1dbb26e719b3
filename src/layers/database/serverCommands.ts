/**
 * A few commands on a short-lived connection of their own: health checks, MODULE LIST, ROLE,
 * SHUTDOWN, asking a sentinel where the master is. The application's queries use the `falkordb`
 * client; this is the same `@redis/client` underneath, without a graph on top.
 */
import { createClient, ErrorReply } from "@redis/client"
import { Duration, Effect, Redacted, Schema } from "effect"
import { isConnectionError } from "./driverErrors.js"

export { ErrorReply }

/** What a command answered: a RESP2 value, or the server's error reply for that command. */
export type Reply = unknown

/** The server did not answer: absent, refused, closed early or too slow. */
export class ServerUnreachable extends Schema.TaggedError<ServerUnreachable>()("ServerUnreachable", {
  code: Schema.String
}) {}

/** A failing connection is ServerUnreachable (by its errno code); anything else thrown is a bug (driverErrors.ts). */
const unreachable = (cause: unknown): Effect.Effect<never, ServerUnreachable> =>
  isConnectionError(cause)
    ? Effect.fail(
      new ServerUnreachable({
        code: cause instanceof Error && typeof (cause as NodeJS.ErrnoException).code === "string"
          ? (cause as NodeJS.ErrnoException).code as string
          : cause instanceof Error && /timeout/i.test(cause.name)
          ? "ETIMEDOUT"
          : "ECLOSED"
      })
    )
    : Effect.die(cause)

/**
 * Authenticates (unless `password` is null) and sends `commands`; answers one reply a command. A
 * refused password is that error reply in every position, so a caller can tell "wrong password"
 * from "nobody there" (ServerUnreachable).
 */
export const sendCommands = (
  /** A unix socket path, or a TCP address (the sentinels of a replicated deployment). */
  target: string | { readonly host: string; readonly port: number },
  password: Redacted.Redacted<string> | null,
  commands: ReadonlyArray<ReadonlyArray<string>>,
  timeout: Duration.DurationInput = "2 seconds"
): Effect.Effect<ReadonlyArray<Reply>, ServerUnreachable> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const client = createClient({
        socket: {
          ...(typeof target === "string" ? { path: target } : { host: target.host, port: target.port }),
          connectTimeout: Duration.toMillis(timeout),
          reconnectStrategy: false
        },
        ...(password === null ? {} : { password: Redacted.value(password) }),
        disableOfflineQueue: true,
        disableClientInfo: true
      })
      // Without a listener an 'error' event would end the process; the failure surfaces below.
      client.on("error", () => {})
      return client
    }),
    (client) =>
      Effect.tryPromise({
        try: async () => {
          try {
            await client.connect()
          } catch (e) {
            if (e instanceof ErrorReply) return commands.map(() => e)
            throw e
          }
          return Promise.all(commands.map((c) =>
            client.sendCommand([...c]).catch((e: unknown) => {
              if (e instanceof ErrorReply) return e
              throw e
            })
          ))
        },
        catch: (cause) => cause
      }).pipe(Effect.catchAll(unreachable)),
    (client) =>
      Effect.sync(() => {
        try {
          client.destroy()
        } catch {
          // never opened, or already closed by the server (SHUTDOWN)
        }
      })
  ).pipe(Effect.timeoutFail({ duration: timeout, onTimeout: () => new ServerUnreachable({ code: "ETIMEDOUT" }) }))
