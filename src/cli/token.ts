/**
 * `npm run token -- create --name alice-cursor --workspace acme [--read-only | --approver]`, `list [--json]`,
 * `revoke <id or name>`: the bearer tokens of `relay --http`, in the admin graph (RELAY_TOKEN_GRAPH)
 * of the configured database. A new token is printed once, on stdout; only its SHA-256 is kept.
 */
import { Console, Effect, Schema } from "effect"
import { parseArgs } from "node:util"
import { TokenName, workspaceGraph, WorkspaceName } from "../domain/tokens.js"
import { SettingsLive } from "../layers/assembly/SettingsLive.js"
import { tokenStack } from "../layers/assembly/stacks.js"
import { TokenStore } from "../services/TokenStore.js"
import { CliFailure, runCli } from "./common.js"

const USAGE =
  "usage: npm run token -- create --name <name> --workspace <workspace> [--read-only | --approver] | list [--json] | revoke <id or name>"

const usage = (why: string) => new CliFailure({ message: `${why}\n${USAGE}`, exitCode: 2 })

const check = <A>(schema: Schema.Schema<A, string>, field: string, value: string | undefined) =>
  value === undefined
    ? Effect.fail(usage(`--${field} is required`))
    : Schema.decode(schema)(value).pipe(
      Effect.mapError((e) =>
        usage(`--${field}: ${e.issue._tag === "Refinement" ? "has the wrong form" : "is not valid"}`)
      )
    )

const iso = (ms: number) => new Date(ms).toISOString()

const main = Effect.gen(function*() {
  const { positionals, values } = yield* Effect.try({
    try: () =>
      parseArgs({
        args: process.argv.slice(2),
        allowPositionals: true,
        options: {
          name: { type: "string" },
          workspace: { type: "string" },
          "read-only": { type: "boolean", default: false },
          approver: { type: "boolean", default: false },
          json: { type: "boolean", default: false }
        }
      }),
    catch: () => usage("unknown option")
  })
  const tokens = yield* TokenStore
  switch (positionals[0]) {
    case "create": {
      const name = yield* check(TokenName, "name", values.name)
      const workspace = yield* check(WorkspaceName, "workspace", values.workspace)
      if (values.approver && values["read-only"]) return yield* usage("--approver and --read-only do not go together")
      const { record, token } = yield* tokens.create({
        name,
        workspace,
        readOnly: values["read-only"],
        approver: values.approver
      })
      yield* Console.error(
        `token ${record.id} for ${name} in workspace ${workspace} (graph ${workspaceGraph(workspace)})` +
          `${record.readOnly ? ", read-only" : ""}${
            record.approver ? ", approver (a person's: it approves tasks and opens no MCP session)" : ""
          }. It is shown once: copy it into the client now.`
      )
      yield* Console.log(token)
      return
    }
    case "list": {
      const all = yield* tokens.list
      if (values.json) return yield* Console.log(JSON.stringify(all))
      if (all.length === 0) return yield* Console.log("no tokens yet (npm run token -- create ...)")
      for (const t of all) {
        yield* Console.log(
          [
            t.id,
            t.name,
            t.workspace,
            t.approver ? "approver" : t.readOnly ? "read-only" : "read-write",
            `created ${iso(t.createdAt)}`,
            t.revokedAt === null ? "active" : `revoked ${iso(t.revokedAt)}`
          ].join("  ")
        )
      }
      return
    }
    case "revoke": {
      const key = positionals[1]
      if (key === undefined) return yield* usage("revoke needs a token id or name")
      const revoked = yield* tokens.revoke(key)
      if (revoked.length === 0) {
        return yield* new CliFailure({ message: "no active token has that id or name", exitCode: 1 })
      }
      return yield* Console.log(`revoked ${revoked.join(", ")}`)
    }
    default:
      return yield* usage(positionals[0] === undefined ? "no command" : "unknown command")
  }
}).pipe(
  Effect.provide(tokenStack(SettingsLive)),
  Effect.catchTag(
    "DatabaseError",
    () => new CliFailure({ message: "the database is unavailable (npm run check-db says why)", exitCode: 1 })
  )
)

runCli(main)
