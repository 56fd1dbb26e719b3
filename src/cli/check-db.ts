/**
 * `npm run check-db`: which database Relay is configured for (embedded, configured host:port or
 * URL, or Docker), whether it answers, its FalkorDB version, and the graph with its fact count.
 * With `--verify`, checks every fact's stored staleness, every fork window, the task counters and the
 * threads and clusters (recomputed from the edges) and each procedure's run counts (recounted from its
 * runs) against what the graph holds (verifyStored.ts):
 * exit 1 on drift.
 * Never prints a password. Exits 1 with one sentence saying what to do when it is unreachable.
 * Like any Relay process, it starts (or joins) the embedded server when none is configured.
 */
import { Console, Effect, Layer, Option } from "effect"
import type { DatabaseFailure } from "../domain/errors.js"
import { SettingsLive } from "../layers/assembly/SettingsLive.js"
import { checkStack, embeddedStack } from "../layers/assembly/stacks.js"
import { EmbeddedServer } from "../services/EmbeddedServer.js"
import { GraphDatabase } from "../services/GraphDatabase.js"
import { Settings } from "../services/Settings.js"
import { outsideCount, StoreCheck } from "../services/StoreCheck.js"
import { CliFailure, countFacts, type DatabaseDescription, describeDatabase, runCli, secretsOf } from "./common.js"
import { stampAhead } from "./stampAhead.js"

const whatToDo = (db: DatabaseDescription): string => {
  switch (db.kind) {
    case "docker":
      return "start it with `docker compose up -d` (beside package.json), or unset FALKORDB_* to use the embedded server."
    case "configured":
      return "start that server or fix FALKORDB_HOST/FALKORDB_PORT/FALKORDB_PASSWORD (or FALKORDB_URL) in .env, or unset them to use the embedded server."
    case "embedded":
      return "run `npm run setup-db`, then `npm run db -- start` to see why the embedded server does not start."
  }
}

/**
 * One sentence for a database that failed the first statements. Only a connection that is refused
 * or lost means nothing answers: a server that is loading, busy or refusing work is there, and
 * telling its operator to start it sends them the wrong way.
 */
const unreachableMessage = (reason: DatabaseFailure, db: DatabaseDescription): string => {
  switch (reason) {
    case "refused_login":
      return "The database answered but refused the password: check FALKORDB_PASSWORD (or FALKORDB_URL) in .env."
    case "no_module":
      return "The database answered but has no FalkorDB module loaded: point FALKORDB_* at a FalkorDB server, or unset them to use the embedded one."
    case "busy":
      return `The database at ${db.address} answers but is loading its data or failing over: run the check again in a moment.`
    case "refused":
      return `The database at ${db.address} answers but refuses work (out of memory, read-only, a replica, or too many clients): see its log.`
    case "timeout":
    case "stopped":
      return `No answer in time from ${db.address}: if it runs, it is busy, so run the check again; if not, ${
        whatToDo(db)
      }`
    case "newer_schema":
      return `The graph at ${db.address} was written by a newer Relay: upgrade this one (docs/upgrading.md).`
    default:
      return `Nothing answers at ${db.address}: ${whatToDo(db)}`
  }
}

const main = Effect.gen(function*() {
  const settings = yield* Settings
  const { database, graph } = settings
  const secrets = secretsOf(database)
  // Nothing printed here should hold a password; scrub anyway.
  const say = (line: string) => Console.log(secrets.reduce((l, s) => (s === "" ? l : l.split(s).join("****")), line))
  const db = yield* describeDatabase(database)
  yield* say(`database:  ${db.where}`)
  const wasRunning = database._tag === "Embedded"
    ? Option.some(
      yield* Effect.flatMap(EmbeddedServer, (s) => s.status).pipe(Effect.map((s) => s.running))
    )
    : Option.none<boolean>()

  const probe = Effect.gen(function*() {
    const gdb = yield* GraphDatabase
    const versions = yield* gdb.versions
    const facts = yield* countFacts
    const ahead = yield* stampAhead
    // Its own outcome: a verify statement past the time limit on a busy server is no unreachable database.
    const checked = process.argv.slice(2).includes("--verify")
      ? yield* Effect.either((yield* StoreCheck).verify(10, ahead))
      : null
    return { versions, facts, checked }
  }).pipe(
    Effect.provide(checkStack(Layer.succeed(Settings, settings))),
    Effect.catchTag("DatabaseError", (e) =>
      new CliFailure({
        message: unreachableMessage(e.reason, db),
        exitCode: 1
      })),
    Effect.catchTag("EmbeddedServerError", (e) => new CliFailure({ message: e.message, exitCode: 1 }))
  )
  const started = yield* Effect.exit(probe)
  if (started._tag === "Failure") {
    yield* say("reachable: no")
    return yield* started
  }
  const { checked: verified, facts, versions } = started.value
  const joined = Option.match(wasRunning, {
    onNone: () => "yes",
    onSome: (
      running
    ) => (running
      ? "yes (the embedded server was running)"
      : "yes (started the embedded server; it keeps running for Relay)")
  })
  yield* say(`reachable: ${joined}`)
  yield* say(
    `FalkorDB:  ${Option.getOrElse(versions.module, () => "unknown")}${
      Option.match(versions.server, {
        onNone: () => "",
        onSome: (s) => ` on ${s}`
      })
    }`
  )
  yield* say(`graph:     ${graph} (RELAY_GRAPH), ${facts} fact${facts === 1 ? "" : "s"}`)
  if (verified === null) return
  if (verified._tag === "Left") {
    return yield* new CliFailure({
      message: `verify: stopped, the database failed a statement (${
        verified.left.reason === "timeout" ? "it ran past the time limit" : verified.left.reason
      }); it answers, so run the check again when it is less busy`,
      exitCode: 1
    })
  }
  const checked = verified.right
  for (const d of checked.examples) {
    yield* say(
      `drift:     fact ${d.id} stores ${d.field} ${d.stored ?? "nothing"}, its edges say ${d.expected ?? "nothing"}`
    )
  }
  for (const d of checked.forkExamples) {
    yield* say(
      `drift:     fork under ${d.id} stores opened ${d.opened ?? "nothing"}, its children say ${
        d.open ? "open" : "closed"
      }`
    )
  }
  for (const d of checked.pairExamples) {
    yield* say(
      `drift:     facts ${d.id} and ${d.sibling} ${
        d.pair ? "are a fork pair by the rule, with no FORKS edge" : "have a FORKS edge the rule does not give"
      }`
    )
  }
  for (const d of checked.taskCounts) {
    yield* say(`drift:     the board counts ${d.stored} ${d.status} tasks, a recount finds ${d.counted}`)
  }
  for (const id of checked.unmarkedExamples) {
    yield* say(`drift:     fork under ${id} has an open pair now and no fork mark: conflicts reads pass it over`)
  }
  const out = checked.outside
  for (const f of out.factExamples) {
    yield* say(`stamp:     fact ${f.id} is stamped ${f.created_at}, outside 1970 .. now + the window ahead`)
  }
  if (out.clockLast !== null) yield* say(`stamp:     the graph's clock stands at ${out.clockLast}, outside the window`)
  for (const k of ["decisions", "retractions", "confirmations", "tasks"] as const) {
    if (out[k] > 0) yield* say(`stamp:     ${out[k]} ${k} stamped outside the window`)
  }
  if (outsideCount(out) > 0) {
    return yield* new CliFailure({
      message: `verify: ${outsideCount(out)} stamp(s) outside 1970 .. now + RELAY_STAMP_AHEAD_SECONDS ` +
        `(${out.facts} of them facts); a save answers after the graph's clock, so such a stamp is a write from the ` +
        `future: see docs/transfer.md`,
      exitCode: 1
    })
  }
  for (const d of checked.clusters.examples) yield* say(`drift:     ${d}`)
  if (checked.clusters.drifted > 0) {
    return yield* new CliFailure({
      message: `verify: ${checked.clusters.drifted} thread roots, cluster memberships or tallies differ from what ` +
        `the edges give; report it with this output`,
      exitCode: 1
    })
  }
  if (checked.unmarked > 0) {
    return yield* new CliFailure({
      message: `verify: ${checked.unmarked} forked parent(s) have an open pair and no fork mark; ` +
        "import the same file again with --merge (it marks them), or report it with this output",
      exitCode: 1
    })
  }
  if (checked.taskCounts.length > 0) {
    return yield* new CliFailure({
      message: `verify: ${checked.taskCounts.length} task counter${
        checked.taskCounts.length === 1 ? " differs" : "s differ"
      } from a recount; report it with this output`,
      exitCode: 1
    })
  }
  if (checked.runs.drifted.length > 0) {
    return yield* new CliFailure({
      message: `verify: ${checked.runs.drifted.length} of ${checked.runs.procedures} procedures store run counts ` +
        `a recount of their runs does not give (first: ${
          JSON.stringify(checked.runs.drifted[0])
        }); report it with this output`,
      exitCode: 1
    })
  }
  if (checked.pairsDrifted > 0) {
    return yield* new CliFailure({
      message: `verify: ${checked.pairsDrifted} sibling pair${checked.pairsDrifted === 1 ? "" : "s"} store a fork ` +
        `edge the fork rule does not give, or lack one it gives; report it with this output`,
      exitCode: 1
    })
  }
  if (checked.forksDrifted > 0) {
    return yield* new CliFailure({
      message: `verify: ${checked.forksDrifted} of ${checked.forks} forks store a window their children do not give; ` +
        `report it with this output`,
      exitCode: 1
    })
  }
  if (checked.drifted > 0) {
    return yield* new CliFailure({
      message: `verify: ${checked.drifted} of ${checked.facts} facts store a staleness their edges do not give; ` +
        `report it with this output`,
      exitCode: 1
    })
  }
  yield* say(
    `verify:    ${checked.facts} facts and ${checked.forks} forks, each stored staleness and window agrees with its ` +
      `edges; the fork pairs of ${checked.pairsChecked} choices agree with the fork rule; every open pair has its fork mark, every stamp is inside the window; the task counters agree with a recount; ` +
      `${checked.clusters.clusters} clusters, each thread root, membership and tally agrees with the edges; ` +
      `${checked.runs.procedures} procedures, each one's run counts agree with a recount of its runs`
  )
}).pipe(Effect.provide(embeddedStack(SettingsLive)))

runCli(main)
