import { Effect, Either, Exit, Scope } from "effect"
import type { ServerResponse } from "node:http"
import type { Caller } from "../domain/tokens.js"
import { TaskStore } from "../services/TaskStore.js"
import { WorkspaceStores } from "../services/WorkspaceStores.js"
import { json } from "./replies.js"

/** `POST /tasks/<task id>/approve` or `/reject`: a person's decision, by a token made with `--approver`. */
const route = /^\/tasks\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/(approve|reject)$/i

export const approvalRoute = (url: string): { readonly id: string; readonly approve: boolean } | null => {
  const m = route.exec(url)
  return m === null ? null : { id: m[1]!.toLowerCase(), approve: m[2]!.toLowerCase() === "approve" }
}

/**
 * Approves or rejects a task of the caller's workspace. Only an approver token may: an assistant's
 * token (read-write or read-only) gets 403 whatever the task, its own included, and an approver token
 * opens no MCP session (serveHttp), so no assistant ever holds one through Relay.
 */
export const decideOverHttp = (caller: Caller, decision: { readonly id: string; readonly approve: boolean }) =>
  Effect.gen(function*() {
    if (!caller.approver) {
      return {
        status: 403,
        body: { error: "forbidden: only a person's token made with --approver may approve or reject tasks" }
      }
    }
    const scope = yield* Scope.make()
    const stores = yield* WorkspaceStores
    const context = yield* Scope.extend(stores.storeFor(caller.workspace), scope)
    const decided = yield* Effect.either(
      Effect.flatMap(TaskStore, (store) => store.decide(decision.id, decision.approve, caller.name)).pipe(
        Effect.provide(context)
      )
    )
    yield* Scope.close(scope, Exit.void)
    if (Either.isRight(decided)) return { status: 200, body: { task: decided.right } }
    const e = decided.left
    const status = e._tag === "TaskNotFound" ? 404 : e._tag === "InvalidInput" ? 409 : 503
    const message = e._tag === "DatabaseError" ? "the memory database is unavailable right now; try again" : e.message
    return { status, body: { error: `${e.code}: ${message}` } }
  })

export const sendDecision = (res: ServerResponse, reply: { readonly status: number; readonly body: unknown }) =>
  json(res, reply.status, reply.body, reply.status === 503 ? { "retry-after": "2" } : {})
