/**
 * `npm run seed [-- --force]`: loads the demo story into the configured graph (RELAY_GRAPH, default
 * relay) of the configured database, to look at in FalkorDB Browser. Refuses a graph that already
 * has facts unless --force is given. Goes through the tools' own path, so validation and the secret
 * scanner apply.
 */
import { Console, Effect } from "effect"
import { loadStory } from "../demo/seed.js"
import { SettingsLive } from "../layers/assembly/SettingsLive.js"
import { relayStack } from "../layers/assembly/stacks.js"
import { Settings } from "../services/Settings.js"
import { CliFailure, countFacts, type DatabaseDescription, describeDatabase } from "./common.js"
import { runCli } from "./common.js"

const USAGE = "usage: npm run seed [-- --force]"

const browserHint = (db: DatabaseDescription, graph: string): string => {
  switch (db.kind) {
    case "docker":
      return `Open FalkorDB Browser at http://localhost:3000, pick the graph ${graph} and run MATCH p=(:Fact)-[]->(:Fact) RETURN p.`
    case "configured":
      return `Connect FalkorDB Browser to that server, pick the graph ${graph} and run MATCH p=(:Fact)-[]->(:Fact) RETURN p.`
    case "embedded":
      return "The embedded server listens on a unix socket only, so FalkorDB Browser cannot reach it: use the Docker " +
        "path (docker compose up -d, then http://localhost:3000) to browse. Your assistants see the story through Relay now."
  }
}

const main = Effect.gen(function*() {
  const args = process.argv.slice(2)
  if (args.some((a) => a !== "--force")) return yield* new CliFailure({ message: USAGE, exitCode: 2 })
  const force = args.includes("--force")
  const { database, graph } = yield* Settings
  const db = yield* describeDatabase(database)
  yield* Console.log(`Seeding the demo story into graph ${graph} of the ${db.where}`)
  const existing = yield* countFacts
  if (existing > 0 && !force) {
    return yield* new CliFailure({
      message: `The graph ${graph} already has ${existing} fact(s); seed loads the story only into an empty graph ` +
        "(run `npm run seed -- --force` to add it anyway, or set RELAY_GRAPH to another graph).",
      exitCode: 1
    })
  }
  const loaded = yield* loadStory
  yield* Console.log(
    `Loaded ${loaded.facts} facts and ${loaded.decisions} decision${
      loaded.decisions === 1 ? "" : "s"
    } into graph ${graph}.`
  )
  yield* Console.log(browserHint(db, graph))
}).pipe(
  Effect.catchTag("DatabaseError", () =>
    new CliFailure({
      message: "FalkorDB could not be reached; run `npm run check-db` to see which database Relay uses and what to do.",
      exitCode: 1
    })),
  Effect.provide(relayStack(SettingsLive))
)

runCli(main)
