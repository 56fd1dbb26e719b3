import { Config, Effect, Option, Redacted } from "effect"
import { DatabaseError } from "../../domain/errors.js"
import type { Address, DatabaseTarget } from "../../services/Settings.js"
import { ErrorReply, type Reply, sendCommands } from "./serverCommands.js"

/** `host:port` (or `[v6]:port`), or null. */
export const address = (text: string): Address | null => {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(text.trim())
  return match === null ? null : { host: match[1]!, port: Number(match[2]) }
}

/**
 * FALKORDB_SENTINELS=host:port,host:port (blank: none), the master's name as the sentinels know it,
 * and their own password. The servers' password is Settings' (FALKORDB_PASSWORD).
 */
export const sentinelConfig = Config.all({
  sentinels: Config.string("FALKORDB_SENTINELS").pipe(Config.withDefault("")),
  master: Config.string("FALKORDB_SENTINEL_MASTER").pipe(Config.withDefault("relay")),
  sentinelPassword: Config.option(Config.redacted("FALKORDB_SENTINEL_PASSWORD"))
}).pipe(
  Config.validate({
    message: "FALKORDB_SENTINELS must be a comma-separated list of host:port",
    validation: ({ sentinels }) => sentinels.trim() === "" || sentinels.split(",").every((a) => address(a) !== null)
  }),
  Config.map(({ master, sentinelPassword, sentinels }) => ({
    sentinels: sentinels.trim() === "" ? [] : sentinels.split(",").map((a) => address(a)!),
    master,
    sentinelPassword: Option.getOrNull(sentinelPassword)
  }))
)

const transient = (detail: string) => new DatabaseError({ reason: "unreachable", detail })

const asAddress = (reply: Reply): Address | null =>
  Array.isArray(reply) && typeof reply[0] === "string" && typeof reply[1] === "string"
    ? address(`${reply[0]}:${reply[1]}`)
    : null

/**
 * Where the master is now: every sentinel is asked at once, and the first address whose server
 * says it is a master (ROLE) wins. Just after a failover one sentinel may still name the old master
 * (sentinels learn the new one from each other within about 2 s): asking them in turn and taking
 * the first answer would then try only the dead one, so an answer that ROLE does not confirm only
 * counts that sentinel out. Asked on every (re)connect, so after a failover the next call finds the
 * new master as soon as any sentinel names it.
 */
const currentMaster = (
  sentinels: ReadonlyArray<Address>,
  master: string,
  sentinelPassword: Redacted.Redacted<string> | null,
  password: Redacted.Redacted<string> | null
) =>
  Effect.raceAll(
    sentinels.map((s) =>
      sendCommands(s, sentinelPassword, [["SENTINEL", "get-master-addr-by-name", master]], "1 second").pipe(
        Effect.mapError((e) => transient(`sentinel ${s.host}:${s.port}: ${e.code}`)),
        Effect.flatMap(([reply]) => {
          const found = asAddress(reply)
          return found === null
            ? Effect.fail(transient(`sentinel ${s.host}:${s.port} knows no master named ${master}`))
            : Effect.succeed(found)
        }),
        Effect.tap((m) =>
          sendCommands(m, password, [["ROLE"]], "1 second").pipe(
            Effect.mapError((e) => transient(`master ${m.host}:${m.port}: ${e.code}`)),
            Effect.flatMap(([role]) =>
              Array.isArray(role) && role[0] === "master"
                ? Effect.void
                : Effect.fail(transient(
                  `${m.host}:${m.port} is not a master yet (${role instanceof ErrorReply ? role.message : "replica"})`
                ))
            )
          )
        )
      )
    )
  )

/** The endpoint through the sentinels: the current master, asked on every (re)connect. */
export const sentinelEndpoint = (
  { master, password, sentinelPassword, sentinels }: Extract<DatabaseTarget, { _tag: "Sentinel" }>
) => ({
  options: currentMaster(sentinels, master, sentinelPassword, password).pipe(
    Effect.map((m) => ({
      socket: { host: m.host, port: m.port },
      ...(password === null ? {} : { password: Redacted.value(password) })
    }))
  )
})
