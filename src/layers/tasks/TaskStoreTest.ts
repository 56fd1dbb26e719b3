import { Effect, Layer } from "effect"
import { TaskStore } from "../../services/TaskStore.js"

/** The task board has no rules in the pure model (src/domain/model): every operation dies naming itself. */
const unmodelled = (operation: string) =>
  Effect.dieMessage(`TaskStoreTest: ${operation} is not in the pure model (src/domain/model); test it on FalkorDB`)

/**
 * A TaskStore for tests of tools that take one but must not use it (the tool context asks for
 * every store): a call that reaches the board fails loudly instead of reading an empty stub.
 */
export const TaskStoreTest = Layer.succeed(TaskStore, {
  post: () => unmodelled("post"),
  claim: () => unmodelled("claim"),
  finish: () => unmodelled("finish"),
  list: () => unmodelled("list"),
  decide: () => unmodelled("decide"),
  briefing: () => unmodelled("briefing"),
  idsStartingWith: () => unmodelled("idsStartingWith")
})
