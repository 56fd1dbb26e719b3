import { Effect, Layer, RcMap } from "effect"
import { workspaceGraph } from "../../domain/tokens.js"
import { Database, GraphDatabase } from "../../services/GraphDatabase.js"
import { WorkspaceStores } from "../../services/WorkspaceStores.js"
import { FactStoreLive, RankDaemonLive } from "../factStore/FactStoreLive.js"
import { TaskStoreLive } from "../tasks/TaskStoreLive.js"

/**
 * One FactStore and TaskStore per workspace, each bound to its own graph (`relay_ws_<name>`) when it is made: no
 * call can name a graph, so a session can only ever reach the workspace its token names. All share
 * the process's pool of connections; a store is made on first use, shared by every session of that
 * workspace, and let go a while after the last one ends.
 */
export const WorkspaceStoresLive = Layer.scoped(
  WorkspaceStores,
  Effect.gen(function*() {
    const database = yield* Database
    const stores = yield* RcMap.make({
      lookup: (workspace: string) =>
        Layer.build(
          Layer.mergeAll(FactStoreLive, TaskStoreLive, RankDaemonLive).pipe(
            Layer.provide(Layer.succeed(GraphDatabase, database.graph(workspaceGraph(workspace))))
          )
        ),
      idleTimeToLive: "5 minutes"
    })
    return { storeFor: (workspace: string) => RcMap.get(stores, workspace) }
  })
)
