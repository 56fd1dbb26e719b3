import type { FileSystem, Path } from "@effect/platform"
import { Effect, Option } from "effect"
import type { EmbeddedLayout, EmbeddedStatus } from "../../services/EmbeddedServer.js"
import { sendCommands } from "../database/serverCommands.js"
import { infoField, moduleVersion, serverVersion } from "../database/serverInfo.js"
import { EmbeddedServerError, fail } from "./EmbeddedServerError.js"
import { currentLayout } from "./layout.js"
import { readPassword } from "./password.js"
import { isReply } from "./probe.js"
import { livePidFromFile } from "./processes.js"

export type { EmbeddedStatus }

/** Whether the embedded server of this data dir runs, and what it is. Never fails for a stopped server. */
export const embeddedStatusAt = (
  layout: EmbeddedLayout
): Effect.Effect<EmbeddedStatus, EmbeddedServerError, FileSystem.FileSystem | Path.Path> =>
  Effect
    .gen(function*() {
      const base = { dataDir: layout.dataDir, socketPath: layout.socketPath }
      const livePid = yield* livePidFromFile(layout.pidFile, layout.socketPath)
      const stopped: EmbeddedStatus = {
        ...base,
        running: false,
        loading: false,
        pid: livePid,
        moduleVersion: Option.none(),
        serverVersion: Option.none()
      }
      const password = yield* readPassword(layout.passwordFile)
      if (Option.isNone(password)) return stopped
      const replies = yield* sendCommands(layout.socketPath, password.value, [
        ["MODULE", "LIST"],
        ["INFO", "server"],
        ["INFO", "persistence"]
      ]).pipe(Effect.option)
      if (Option.isNone(replies)) return stopped
      const [modules, info, persistence] = replies.value
      // While it replays its files the server answers INFO but refuses most else with LOADING.
      const loading = (isReply(modules) && modules.message.startsWith("LOADING")) ||
        Option.getOrElse(infoField(persistence, "loading"), () => "0") === "1"
      if (loading && !isReply(info)) {
        return {
          ...base,
          running: true,
          loading: true,
          pid: infoField(info, "process_id").pipe(Option.map(Number), Option.orElse(() => livePid)),
          moduleVersion: Option.none(),
          serverVersion: serverVersion(info)
        }
      }
      if (isReply(modules) || isReply(info)) {
        return yield* fail(
          `A server answers on ${layout.socketPath} but refuses the password in ${layout.passwordFile}.`
        )
      }
      return {
        ...base,
        running: true,
        loading: false,
        pid: infoField(info, "process_id").pipe(Option.map(Number), Option.orElse(() => livePid)),
        moduleVersion: moduleVersion(modules),
        serverVersion: serverVersion(info)
      }
    }).pipe(Effect.withSpan("relay/embedded/embeddedStatus"))

/** The same for the data dir the current settings name. */
export const embeddedStatus = Effect.flatMap(currentLayout, embeddedStatusAt)
