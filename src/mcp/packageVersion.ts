import { Schema } from "effect"
import { createRequire } from "node:module"

/**
 * The version in package.json, so the one a client sees in `initialize` is the one npm installed.
 * Two levels up from both src/mcp (tests) and dist/mcp (the built server).
 */
export const packageVersion: string = Schema.decodeUnknownSync(Schema.Struct({ version: Schema.String }))(
  createRequire(import.meta.url)("../../package.json")
).version
