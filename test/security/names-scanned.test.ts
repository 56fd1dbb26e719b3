import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { nameFields } from "../../src/policies/scanNames.js"
import { tools } from "../../src/tools/registry.js"
import { failed, ok } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"

/** Names that pass AgentName's pattern and are credentials (issue 40: a post's author, a claimer). */
const awsKeyId = "AKIA2X7QJ4LZ5MNB3WVY"
const githubToken = "ghp_R4nd0mT0k3nV4lu3Xq9Lk2Zp7Tn1Vb5Mc8Hd3"

const someId = "00000000-0000-4000-8000-000000000000"

/** One input per tool that decodes, so the only thing wrong with it is the name put in. */
const validInputs: Record<string, Record<string, unknown>> = {
  relay_save_fact: { content: "x", written_by: "ann", session_id: "s" },
  relay_resolve_conflict: { winner_fact_id: someId, loser_fact_id: someId, reason: "r", resolved_by: "ann" },
  relay_retract_fact: { fact_id: someId, reason: "r", retracted_by: "ann" },
  relay_confirm_fact: { fact_id: someId, reason: "r", confirmed_by: "ann" },
  relay_get_briefing: { my_name: "ann" },
  relay_get_current_state: {},
  relay_search: { query: "redis" },
  relay_post_task: { title: "t", written_by: "ann" },
  relay_claim_task: { claimed_by: "ann" },
  relay_finish_task: { task_id: someId, claimed_by: "ann", fencing_token: 1, outcome: "done" },
  relay_list_tasks: {},
  relay_record_run: { procedure_id: someId, outcome: "success", ran_by: "ann" },
  relay_find_procedure: { goal: "redis" }
}

/** Every name field of every tool: a new one must be added here (and is scanned without it). */
const nameFieldsOf: Record<string, ReadonlyArray<string>> = {
  relay_save_fact: ["session_id", "written_by"],
  relay_resolve_conflict: ["resolved_by"],
  relay_retract_fact: ["retracted_by"],
  relay_confirm_fact: ["confirmed_by"],
  relay_get_briefing: ["my_name"],
  relay_get_current_state: ["session_id", "written_by"],
  relay_search: ["session_id", "written_by"],
  relay_post_task: ["written_by"],
  relay_claim_task: ["claimed_by"],
  relay_finish_task: ["claimed_by"],
  relay_list_tasks: ["claimed_by"],
  relay_record_run: ["ran_by", "session_id"]
}

layer(relayTestLayer("names_scanned"))("names are scanned on every tool", (it) => {
  it("finds the name fields of every tool from its Schema", () => {
    const found = Object.fromEntries(
      tools.map((t) => [t.name, [...nameFields(t)].sort()] as const).filter(([, f]) => f.length > 0)
    )
    expect(found).toEqual(nameFieldsOf)
  })

  it.effect("refuses a credential in any name with secret_detected and writes nothing", () =>
    Effect.gen(function*() {
      const open = yield* ok("relay_post_task", { title: "rotate the keys", written_by: "ann" })
      for (const [tool, fields] of Object.entries(nameFieldsOf)) {
        for (const field of fields) {
          for (const secret of [awsKeyId, githubToken]) {
            const error = yield* failed(tool, { ...validInputs[tool], [field]: secret })
            expect([tool, field, error.code]).toEqual([tool, field, "secret_detected"])
            expect(error.message.startsWith(`${field} looks like it contains a credential`)).toBe(true)
            expect(JSON.stringify(error)).not.toContain(secret.slice(4, 14))
          }
        }
      }
      // Nothing landed: no fact, no other task, and the open task is still unclaimed.
      expect((yield* ok("relay_get_current_state", {})).facts).toEqual([])
      const board = yield* ok("relay_list_tasks", {})
      expect(board.tasks.map((t) => [t.id, t.status, t.claimed_by])).toEqual([[open.task.id, "open", null]])
    }))
})
