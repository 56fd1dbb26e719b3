import { Effect } from "effect"
import { InvalidInput, noFactWithId } from "../domain/errors.js"
import type { Procedure } from "../domain/procedures.js"
import { preconditionsMax, versionsShown } from "../domain/procedures.js"
import { FactStore, type NewFact, type Saved } from "../services/FactStore.js"
import { SecretScanner } from "../services/SecretScanner.js"

/**
 * Saves one version of a procedure (relay_save_fact with steps, and relay_record_run's revision):
 * the fact of kind `procedure` through the FactStore's own save (its rules; a revision supersedes
 * the earlier version in the same statement, so what builds on it goes stale), then its Step nodes.
 * The steps and checks are scanned for secrets first (the caller scans the content and reason), so
 * nothing is written when one is refused. Revising a procedure, the revision's reason (the failure's
 * lesson) becomes the new version's first check, before the earlier version's (or those given);
 * left out, the steps are the earlier version's. Content null: the earlier version's goal.
 */
export const saveProcedureVersion = Effect.fn("relay/tools/saveProcedureVersion")(function*(
  fact: Omit<NewFact, "content" | "kind"> & { readonly content: string | null },
  p: {
    readonly steps: ReadonlyArray<string> | null
    readonly preconditions: ReadonlyArray<string> | null
    /** The input field that names the revised fact, for messages. */
    readonly field: string
  }
) {
  const scanner = yield* SecretScanner
  const store = yield* FactStore
  const steps = p.steps?.map((s) => s.trim()) ?? null
  const given = p.preconditions?.map((s) => s.trim()) ?? null
  yield* Effect.forEach(steps ?? [], (s, i) => scanner.check(`steps.${i}`, s))
  yield* Effect.forEach(given ?? [], (s, i) => scanner.check(`preconditions.${i}`, s))
  let old: Procedure | null = null
  let lineage: ReadonlyArray<string> = []
  let revises = fact.revises ?? null
  if (revises !== null) {
    const k = (yield* store.kinds([revises.id])).get(revises.id)
    if (k === undefined) return yield* noFactWithId(p.field, revises.id)
    if (k.kind === "procedure") {
      old = (yield* store.procedures([revises.id])).get(revises.id) ?? null
      // A version revised already: the revision goes to its newest version, so one version never
      // has two next ones (two lessons on v1 make v2 and v3, not two v2s). The walk stops at this
      // call's own revision's target (its retry revises the same version) and after versionsShown.
      for (let hop = 0; old !== null && old.revised_by !== null && old.revised_by !== fact.id; hop++) {
        if (hop === versionsShown) {
          return yield* new InvalidInput({
            message: `${p.field}: procedure ${revises.id} was revised more than ${versionsShown} times since; ` +
              "revise its newest version"
          })
        }
        old = (yield* store.procedures([old.revised_by])).get(old.revised_by) ?? null
      }
      if (old !== null && old.fact.id !== revises.id) revises = { ...revises, id: old.fact.id }
      const newest = old === null ? k : (yield* store.kinds([old.fact.id])).get(old.fact.id) ?? k
      lineage = [revises.id, ...newest.lineage].slice(0, versionsShown)
    }
  }
  const preconditions = [
    ...(old === null || revises === null ? [] : [revises.reason.trim()]),
    ...(given ?? old?.preconditions ?? [])
  ]
  if (preconditions.length > preconditionsMax + 1) {
    return yield* new InvalidInput({
      message: `preconditions: at most ${preconditionsMax} besides the lesson (the revised version has ${
        preconditions.length - 1
      }); give preconditions to keep fewer`
    })
  }
  const content = fact.content ?? old?.fact.content ?? null
  const stepList = steps ?? old?.steps ?? null
  if (content === null || stepList === null) {
    return yield* new InvalidInput({ message: `${p.field}: a new version needs steps when it revises no procedure` })
  }
  const saved: Saved = yield* store.save({ ...fact, revises, content, kind: "procedure" })
  yield* store.writeSteps({
    id: saved.fact.id,
    version: old === null ? 1 : old.version + 1,
    lineage,
    preconditions,
    steps: stepList
  })
  const procedure = (yield* store.procedures([saved.fact.id])).get(saved.fact.id)
  if (procedure === undefined) return yield* Effect.dieMessage("the procedure saved was not read back")
  // The save answered a fact already there (a retry, or the same goal saved again in this session):
  // its steps stand; other steps are refused rather than dropped without a word.
  if (!sameList(procedure.steps, stepList) || !sameList(procedure.preconditions, preconditions)) {
    return yield* new InvalidInput({
      message: `steps: procedure ${saved.fact.id} was saved already with other steps or checks; ` +
        "revise it with supersedes and reason to change them"
    })
  }
  return { saved, procedure }
})

const sameList = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((x, i) => x === b[i])
