/**
 * Step 11 of the demo: a fact made stale by the decision still holds; one confirmation brings it,
 * and what builds on it, back to every default read.
 */
import { Effect } from "effect"
import { ConfirmFactOutput, ImpactOutput } from "../domain/outputs.js"
import { check, q, type Stage } from "./playKit.js"
import { storyConfirmation } from "./story.js"

export const playConfirm = Effect.fn("relay/demo/playConfirm")(function*(stage: Stage) {
  const { call, contentOf, heading, id, out, style } = stage
  yield* heading(11, `${storyConfirmation.confirmedBy} says a stale fact still holds`, "relay_confirm_fact")
  const step = "confirming the CSRF guard"
  const confirmed = yield* call(step, "relay_confirm_fact", {
    fact_id: id(storyConfirmation.fact),
    reason: storyConfirmation.reason,
    confirmed_by: storyConfirmation.confirmedBy
  }, ConfirmFactOutput)
  const below = yield* call(step, "relay_get_impact", { fact_id: id(storyConfirmation.fact) }, ImpactOutput)
  yield* check(
    step,
    confirmed.fact.status === "active" && confirmed.refreshed === storyConfirmation.refreshed.length &&
      below.dependents.length === storyConfirmation.refreshed.length &&
      below.dependents.every((d, i) => d.fact.id === id(storyConfirmation.refreshed[i]!) && d.fact.status === "active"),
    "the confirmation did not bring the CSRF guard and the rotation built on it back to active"
  )
  yield* out(
    `  ${style.green("✓")} ${q(contentOf(storyConfirmation.fact))} holds again`,
    `  reason: ${q(confirmed.reason)} ${style.dim(`· ${confirmed.confirmed_by}`)}`,
    `  current again with it: ${below.dependents.map((d) => q(d.fact.content)).join(", ")}`
  )
})
