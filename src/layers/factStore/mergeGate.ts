import { Effect, Ref } from "effect"

/**
 * Statements that walk through merges (context, impact, what a decision made stale, resolve,
 * retract) in a memory that has none. Their rounds (walkDown.ts) cost nothing to run there but their
 * plan is large, and FalkorDB copies a cached plan for every run: context from 30 deep took 0.10 ms
 * without them and 0.32-0.40 with. So each has a lean statement without rounds, which also says
 * whether the graph holds a merge now (`merged`, from the merge_depth index: every merge has one)
 * and then writes nothing; the full statement runs instead, and for that graph every later call too
 * (merges are never removed). The answer is exact either way: the lean statement's own snapshot has
 * no merge when its answer is used.
 */

/** Binds `merged`, carrying `carry`: whether any fact of the graph is a merge or below one. */
export const anyMerge = (carry: ReadonlyArray<string>): string =>
  `CALL { MATCH (mg_f:Fact) WHERE mg_f.merge_depth > 0 WITH mg_f LIMIT 1 RETURN count(mg_f) > 0 AS merged } ` +
  `WITH ${[...carry, "merged"].join(", ")} `

/**
 * Whether the store's graph has shown a merge: made by the FactStore that owns the graph
 * (FactStoreLive.ts), so a store made afresh starts lean again and a test can read it.
 */
export type MergeGate = Ref.Ref<boolean>

/** `lean` while the graph has no merge, else `full`; a lean answer from a graph with one is read again in full. */
export const leanUnlessMerged = <R extends { readonly merged?: boolean | undefined }, E, Q>(
  gate: MergeGate,
  lean: Effect.Effect<ReadonlyArray<R>, E, Q>,
  full: Effect.Effect<ReadonlyArray<R>, E, Q>
): Effect.Effect<ReadonlyArray<R>, E, Q> =>
  Effect.flatMap(
    Ref.get(gate),
    (merged) =>
      merged ?
        full :
        Effect.flatMap(lean, (rows) =>
          rows.some((r) => r.merged === true)
            ? Effect.zipRight(Ref.set(gate, true), full)
            : Effect.succeed(rows))
  )
