import { type ConfigError, type Context, Effect, Layer, RcMap, type Scope } from "effect"
import { workspaceGraph } from "../../domain/tokens.js"
import { DatabaseEndpoint } from "../../services/DatabaseEndpoint.js"
import { FactStore } from "../../services/FactStore.js"
import { Settings } from "../../services/Settings.js"
import { FalkorDbLive } from "../database/FalkorDbLive.js"

/**
 * One FactStore per workspace, each bound to its own graph (`relay_ws_<name>`) when it is built: no
 * call can name a graph, so a session can only ever reach the workspace its token names. Built on
 * first use, shared by every session of that workspace, and closed a while after the last one ends.
 */
export const makeWorkspaceStores = Effect.gen(function*() {
  const settings = yield* Settings
  const endpoint = yield* DatabaseEndpoint
  const stores = yield* RcMap.make({
    lookup: (workspace: string) =>
      Layer.build(FactStore.DefaultWithoutDependencies.pipe(
        Layer.provide(FalkorDbLive),
        Layer.provide(Layer.succeed(Settings, { ...settings, graph: workspaceGraph(workspace) })),
        Layer.provide(Layer.succeed(DatabaseEndpoint, endpoint))
      )),
    idleTimeToLive: "5 minutes"
  })
  // Settings were validated when the server started (its token store is built the same way).
  return (workspace: string): Effect.Effect<Context.Context<FactStore>, ConfigError.ConfigError, Scope.Scope> =>
    RcMap.get(stores, workspace)
})
