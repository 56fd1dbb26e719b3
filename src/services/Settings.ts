import { Context, type Redacted } from "effect"

export type DatabaseTarget =
  | { readonly _tag: "Url"; readonly url: Redacted.Redacted<string> }
  | {
    readonly _tag: "HostPort"
    readonly host: string
    readonly port: number
    readonly password: Redacted.Redacted<string> | null
  }
  | { readonly _tag: "Embedded" }

/** Relay's settings, read once at start from the environment and the package's .env file. */
export class Settings extends Context.Tag("relay/Settings")<Settings, {
  readonly database: DatabaseTarget
  readonly graph: string
  readonly rateLimitPerMinute: number
}>() {}
