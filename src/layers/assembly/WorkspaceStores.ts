import { Effect, Layer, RcMap } from "effect"
import { workspaceGraph } from "../../domain/tokens.js"
import { DatabaseEndpoint } from "../../services/DatabaseEndpoint.js"
import { Settings } from "../../services/Settings.js"
import { WorkspaceStores } from "../../services/WorkspaceStores.js"
import { FalkorDbLive } from "../database/FalkorDbLive.js"
import { FactStoreLive } from "../factStore/FactStoreLive.js"
import { TaskStoreLive } from "../tasks/TaskStoreLive.js"

/**
 * One FactStore and TaskStore per workspace, each bound to its own graph (`relay_ws_<name>`) when it is built: no
 * call can name a graph, so a session can only ever reach the workspace its token names. Built on
 * first use, shared by every session of that workspace, and closed a while after the last one ends.
 */
export const WorkspaceStoresLive = Layer.scoped(
  WorkspaceStores,
  Effect.gen(function*() {
    const settings = yield* Settings
    const endpoint = yield* DatabaseEndpoint
    const stores = yield* RcMap.make({
      lookup: (workspace: string) =>
        Layer.build(
          Layer.merge(FactStoreLive, TaskStoreLive).pipe(
            Layer.provide(FalkorDbLive),
            Layer.provide(Layer.succeed(Settings, { ...settings, graph: workspaceGraph(workspace) })),
            Layer.provide(Layer.succeed(DatabaseEndpoint, endpoint))
          )
        ),
      idleTimeToLive: "5 minutes"
    })
    return { storeFor: (workspace: string) => RcMap.get(stores, workspace) }
  })
)
