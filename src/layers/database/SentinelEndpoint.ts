import { Config, Effect, Option, Redacted } from "effect"
import { DatabaseError } from "../../domain/errors.js"
import { ErrorReply, type Reply, sendCommands } from "./serverCommands.js"

interface Address {
  readonly host: string
  readonly port: number
}

const address = (text: string): Address | null => {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(text.trim())
  return match === null ? null : { host: match[1]!, port: Number(match[2]) }
}

/** Whether a FALKORDB_SENTINELS value names any sentinel (a blank one does not). */
export const namesSentinels = (sentinels: Option.Option<string>): boolean =>
  Option.isSome(sentinels) && sentinels.value.trim() !== ""

/** FALKORDB_SENTINELS=host:port,host:port and the master's name, as the sentinels know it. */
export const sentinelConfig = Config.all({
  sentinels: Config.option(Config.string("FALKORDB_SENTINELS")),
  master: Config.string("FALKORDB_SENTINEL_MASTER").pipe(Config.withDefault("relay")),
  sentinelPassword: Config.option(Config.redacted("FALKORDB_SENTINEL_PASSWORD")),
  password: Config.option(Config.redacted("FALKORDB_PASSWORD"))
}).pipe(
  Config.validate({
    message: "FALKORDB_SENTINELS must be a comma-separated list of host:port",
    validation: ({ sentinels }) =>
      Option.match(sentinels, { onNone: () => true, onSome: (s) => s.split(",").every((a) => address(a) !== null) })
  })
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

/** The endpoint through the sentinels `config` names: the current master, asked on every (re)connect. */
export const sentinelEndpoint = (
  { master, password, sentinelPassword, sentinels }: Config.Config.Success<typeof sentinelConfig>
) => {
  const list = Option.getOrElse(sentinels, () => "").split(",").map((a) => address(a)!)
  const pw = Option.getOrNull(password)
  return {
    options: currentMaster(list, master, Option.getOrNull(sentinelPassword), pw).pipe(
      Effect.map((m) => ({
        socket: { host: m.host, port: m.port },
        ...(pw === null ? {} : { password: Redacted.value(pw) })
      }))
    )
  }
}
