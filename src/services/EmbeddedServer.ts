import type { CommandExecutor, FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import { embeddedStatusAt, ensureEmbeddedServerAt, stopEmbeddedServerAt } from "../layers/embedded/EmbeddedServer.js"
import { currentLayout } from "../layers/embedded/layout.js"

type Platform = FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor

/**
 * The embedded FalkorDB of this user's data dir (RELAY_DATA_DIR, else the platform's data directory,
 * read once when built): started or joined, asked how it is, stopped. Depends on the platform's files
 * and processes. Building it touches nothing: only `ensure` starts a server.
 */
export class EmbeddedServer extends Effect.Service<EmbeddedServer>()("relay/EmbeddedServer", {
  effect: Effect.gen(function*() {
    const layout = yield* currentLayout
    const platform = yield* Effect.context<Platform>()
    const here = <A, E>(effect: Effect.Effect<A, E, Platform>) => Effect.provide(effect, platform)
    return {
      layout,
      /** Starts the server, or joins it; safe from many processes at once. */
      ensure: here(ensureEmbeddedServerAt(layout)),
      status: here(embeddedStatusAt(layout)),
      stop: here(stopEmbeddedServerAt(layout))
    }
  }),
  dependencies: [NodeContext.layer]
}) {}
