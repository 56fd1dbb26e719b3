import { type ConfigError, Context, type Effect, type Scope } from "effect"
import type { FactStore } from "./FactStore.js"
import type { TaskStore } from "./TaskStore.js"

/**
 * One FactStore and TaskStore per workspace of team mode, each bound to its own graph: a session can only ever
 * reach the workspace its token names. Held for the scope it is got in.
 * Implemented by layers/assembly (WorkspaceStores.ts).
 */
export class WorkspaceStores extends Context.Tag("relay/WorkspaceStores")<WorkspaceStores, {
  readonly storeFor: (
    workspace: string
  ) => Effect.Effect<Context.Context<FactStore | TaskStore>, ConfigError.ConfigError, Scope.Scope>
}>() {}
