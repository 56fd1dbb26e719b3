import { NodeContext } from "@effect/platform-node"
import { type ConfigProvider, Layer } from "effect"
import { afterAll } from "vitest"
import { teamStack } from "../../src/layers/assembly/stacks.js"
import { connectAdmin } from "./proof.js"
import { testSettings } from "./testLayer.js"

/**
 * What `relay --http` runs on (teamStack) in a test process, on this run's database, with
 * `config` (RELAY_TOKEN_GRAPH and any RELAY_HTTP_* setting) as the ambient provider. The settings'
 * graph is unused: tokens live in their admin graph, workspaces in their own.
 */
export const teamTestLayer = (config: ConfigProvider.ConfigProvider) =>
  teamStack(testSettings("unused")).pipe(
    Layer.provide(NodeContext.layer),
    Layer.provide(Layer.setConfigProvider(config))
  )

/** Drops these graphs once the file's tests are over, so a run leaves nothing behind. */
export const dropGraphsAfterAll = (...graphs: ReadonlyArray<string>) =>
  afterAll(async () => {
    const admin = await connectAdmin()
    for (const graph of graphs) await admin.command(["GRAPH.DELETE", graph]).catch(() => undefined)
    await admin.close()
  })
