import { Context, type Redacted } from "effect"

export interface Address {
  readonly host: string
  readonly port: number
}

export type DatabaseTarget =
  | { readonly _tag: "Url"; readonly url: Redacted.Redacted<string> }
  | {
    readonly _tag: "HostPort"
    readonly host: string
    readonly port: number
    readonly password: Redacted.Redacted<string> | null
  }
  | {
    /** Valkey Sentinel: the current master of `master`, asked of the sentinels on every (re)connect. */
    readonly _tag: "Sentinel"
    readonly sentinels: ReadonlyArray<Address>
    readonly master: string
    readonly sentinelPassword: Redacted.Redacted<string> | null
    /** The servers' own password (FALKORDB_PASSWORD). */
    readonly password: Redacted.Redacted<string> | null
  }
  | {
    /** A Valkey cluster: each graph on the shard that owns its key's slot, found from these seed nodes. */
    readonly _tag: "Cluster"
    readonly nodes: ReadonlyArray<Address>
    readonly password: Redacted.Redacted<string> | null
  }
  | { readonly _tag: "Embedded" }

/** Relay's settings, read once at start from the environment and the package's .env file. */
export class Settings extends Context.Tag("relay/Settings")<Settings, {
  readonly database: DatabaseTarget
  readonly graph: string
  readonly rateLimitPerMinute: number
}>() {}
