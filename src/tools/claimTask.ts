import { Effect } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { requestClaimId } from "../domain/requestId.js"
import { ClaimTaskInput, ClaimTaskOutput } from "../domain/tasks.js"
import { toIso } from "../domain/time.js"
import { TaskStore } from "../services/TaskStore.js"
import { ToolCall } from "../services/ToolCall.js"
import { renderClaimTask } from "./render/tasks.js"
import { defineTool } from "./Tool.js"

export const claimTask = defineTool({
  name: "relay_claim_task",
  description: "Take a task on a lease",
  annotations: { title: "Claim a task", readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  unlisted: ["lease_seconds"],
  input: ClaimTaskInput,
  output: ClaimTaskOutput,
  render: renderClaimTask,
  handler: Effect.fn("relay/tools/relay_claim_task")(function*(input) {
    if (input.task_id === undefined && input.fencing_token !== undefined) {
      return yield* new InvalidInput({ message: "fencing_token: a heartbeat names its task_id" })
    }
    const call = yield* ToolCall
    const claim = yield* (yield* TaskStore).claim({
      claimedBy: input.claimed_by,
      taskId: input.task_id ?? null,
      fence: input.fencing_token ?? null,
      leaseMillis: input.lease_seconds * 1000,
      claimId: input.request_id === undefined ? call.id : requestClaimId(input.claimed_by, input.request_id)
    })
    return claim === null
      ? { task: null, fencing_token: null, lease_expires_at: null, heartbeat: false }
      : {
        task: claim.task,
        fencing_token: claim.fence,
        lease_expires_at: toIso(claim.leaseUntil),
        heartbeat: claim.heartbeat
      }
  })
})
