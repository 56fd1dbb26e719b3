import type { Redacted } from "effect"
import { Effect, Option } from "effect"
import type { EmbeddedEndpoint } from "../../services/EmbeddedServer.js"
import { ErrorReply, type Reply, sendCommands } from "../database/serverCommands.js"
import { EmbeddedServerError, fail } from "./EmbeddedServerError.js"
import type { EmbeddedLayout } from "./layout.js"
import { readPassword } from "./password.js"

export type { EmbeddedEndpoint }

type Probe = "ready" | "absent" | "busy" | "loading"

export const isReply = (v: Reply): v is ErrorReply => v instanceof ErrorReply

/** Authenticated PING: ready, absent (nothing listens), loading (replaying its data), busy; fails if the password is refused. */
export const probeServer = (layout: EmbeddedLayout, password: Redacted.Redacted<string>) =>
  sendCommands(layout.socketPath, password, [["PING"]], "1 second").pipe(
    Effect.flatMap(([reply]): Effect.Effect<Probe, EmbeddedServerError> => {
      if (reply === "PONG") return Effect.succeed("ready")
      if (isReply(reply) && /^(WRONGPASS|NOAUTH|ERR invalid password)/.test(reply.message)) {
        return Effect.fail(
          fail(
            `A server answers on ${layout.socketPath} but refuses the password in ${layout.passwordFile}; stop that server (its pid is in ${layout.pidFile}) and start again.`
          )
        )
      }
      return Effect.succeed(isReply(reply) && /^LOADING\b/.test(reply.message) ? "loading" : "busy")
    }),
    Effect.catchTag("ServerUnreachable", () => Effect.succeed<Probe>("absent"))
  )

export const endpoint = (layout: EmbeddedLayout, password: Redacted.Redacted<string>): EmbeddedEndpoint => ({
  socketPath: layout.socketPath,
  password
})

/** Some(endpoint) if a server answers with the stored password now. */
export const tryJoin = Effect.fn("relay/embedded/tryJoin")(function*(layout: EmbeddedLayout) {
  const password = yield* readPassword(layout.passwordFile)
  if (Option.isNone(password)) return Option.none<EmbeddedEndpoint>()
  const state = yield* probeServer(layout, password.value)
  return state === "ready" ? Option.some(endpoint(layout, password.value)) : Option.none<EmbeddedEndpoint>()
})

/** Whether the server of this data dir answers LOADING now (false when it cannot be asked). */
export const isLoading = (layout: EmbeddedLayout) =>
  readPassword(layout.passwordFile).pipe(
    Effect.flatMap((password) =>
      Option.isNone(password) ? Effect.succeed(false) : Effect.map(
        probeServer(layout, password.value),
        (state) => state === "loading"
      )
    ),
    Effect.orElseSucceed(() => false)
  )
