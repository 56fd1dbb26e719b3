import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import { EmbeddedServer } from "../../services/EmbeddedServer.js"
import { ensureEmbeddedServerAt } from "./EmbeddedServer.js"
import { currentLayout } from "./layout.js"
import { embeddedStatusAt } from "./status.js"
import { stopEmbeddedServerAt } from "./stop.js"

/** The embedded server of the data dir the current settings name (read once, when built), on Node's files and processes. */
export const EmbeddedServerLive = Layer.effect(
  EmbeddedServer,
  Effect.gen(function*() {
    const layout = yield* currentLayout
    const platform = yield* Effect.context<NodeContext.NodeContext>()
    return {
      layout,
      ensure: Effect.provide(ensureEmbeddedServerAt(layout), platform),
      status: Effect.provide(embeddedStatusAt(layout), platform),
      stop: Effect.provide(stopEmbeddedServerAt(layout), platform)
    }
  })
).pipe(Layer.provide(NodeContext.layer))
