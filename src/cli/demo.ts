/**
 * `npm run demo`: starts or joins the database Relay is configured for (the embedded FalkorDB by
 * default), plays the demo story through dist/server.js over stdio in a graph of its own, draws the
 * memory as a tree, drops the graph and prints the client configuration for this install.
 * Exits 1 with one sentence when a step does not show what it should.
 */
import { Clock, Effect, Layer, Random } from "effect"
import * as Os from "node:os"
import * as Path from "node:path"
import { runDemo } from "../demo/demo.js"
import { DemoFailed } from "../demo/mcpSession.js"
import { makeStyle, wantsColour } from "../demo/style.js"
import { SettingsLive } from "../layers/assembly/SettingsLive.js"
import { embeddedStack, graphStack } from "../layers/assembly/stacks.js"
import { packageDir } from "../packageDir.js"
import { Settings } from "../services/Settings.js"
import { CliFailure, describeDatabase, runCli } from "./common.js"

const env = Object.fromEntries(
  Object.entries(process.env).flatMap(([k, v]) => (v === undefined ? [] : [[k, v] as const]))
)

const main = Effect.gen(function*() {
  const configured = yield* Settings
  const stamp = yield* Clock.currentTimeMillis
  const suffix = (yield* Random.nextIntBetween(0, 0xffff)).toString(16).padStart(4, "0")
  const graph = `relay_demo_${stamp}_${suffix}`
  const database = yield* describeDatabase(configured.database)
  yield* runDemo({
    install: {
      nodePath: process.execPath,
      serverPath: Path.join(packageDir, "dist", "server.js"),
      packageDir,
      platform: process.platform,
      home: Os.homedir(),
      appData: process.env.APPDATA,
      env
    },
    style: makeStyle(wantsColour(process.stdout.isTTY === true, process.env.NO_COLOR)),
    database: database.where,
    graph,
    userGraph: configured.graph,
    embedded: database.kind === "embedded",
    serverEnv: env
  }).pipe(Effect.provide(graphStack(Layer.succeed(Settings, configured), graph)))
}).pipe(
  Effect.provide(embeddedStack(SettingsLive)),
  Effect.catchTags({
    DemoFailed: (e: DemoFailed) =>
      new CliFailure({ message: `demo failed while ${e.step}: ${e.message}`, exitCode: 1 }),
    DatabaseError: () =>
      new CliFailure({
        message:
          "demo failed: FalkorDB could not be reached; run `npm run check-db` to see which database Relay uses and what to do.",
        exitCode: 1
      })
  })
)

runCli(main)
