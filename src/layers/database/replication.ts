import { Config, Schema } from "effect"
import { positiveSetting } from "../assembly/positiveSetting.js"

/**
 * RELAY_MIN_REPLICAS: after every write, Valkey's WAIT for at least this many replicas to have it
 * (0, the default, waits for none). RELAY_REPLICA_TIMEOUT_MS: how long WAIT may take.
 */
export const replicationConfig = Config.all({
  minReplicas: Config.integer("RELAY_MIN_REPLICAS").pipe(
    Config.withDefault(0),
    Config.validate({ message: "RELAY_MIN_REPLICAS must be a whole number from 0", validation: (n) => n >= 0 })
  ),
  timeoutMillis: positiveSetting("RELAY_REPLICA_TIMEOUT_MS", 1000)
})

/** Too few replicas confirmed a write that the primary did apply. */
export class ReplicasShortfall extends Schema.TaggedError<ReplicasShortfall>()("ReplicasShortfall", {
  message: Schema.String
}) {}

const replicationDetail = "replication:"

/** Fails with ReplicasShortfall when WAIT's count is below `minReplicas`. */
export const checkAcked = (acked: number, minReplicas: number, timeoutMillis: number) => {
  if (acked < minReplicas) {
    throw new ReplicasShortfall({
      message: `${replicationDetail} ${acked} of ${minReplicas} replicas confirmed the write within ${timeoutMillis} ms`
    })
  }
}

/**
 * WAIT on the very connection the write went over: WAIT counts replicas that reached this
 * connection's last write, so on any other connection it would confirm nothing.
 */
export const confirmReplicas = async (
  client: { readonly sendCommand: (args: Array<string>) => Promise<unknown> },
  minReplicas: number,
  timeoutMillis: number
) =>
  checkAcked(
    Number(await client.sendCommand(["WAIT", String(minReplicas), String(timeoutMillis)])),
    minReplicas,
    timeoutMillis
  )
