import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  connectHttp,
  createToken,
  databaseEnv,
  type HttpClient,
  type HttpRelay,
  initializeBody,
  rawPost,
  startHttpRelay,
  uniqueName
} from "../support/httpRelay.js"
import { createTokenInProcess } from "../support/inProcessRelay.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

/**
 * The task board in team mode, through the real server: `written_by` and `claimed_by` are the token's
 * name; a read-only token claims nothing; only a token made with `--approver` approves (an assistant's
 * token never, not even for its own task) and it opens no MCP session; workspaces do not see each
 * other's tasks.
 */
const env = databaseEnv(uniqueName("relay_tokens_tasks"), { RELAY_HTTP_TOKEN_RECHECK_MS: "0" })
const acme = uniqueName("acme")
const globex = uniqueName("globex")
const tokens: Record<string, string> = {}
const clients: Array<HttpClient> = []
let relay: HttpRelay

const approver = (name: string, workspace: string) =>
  createTokenInProcess(env, { name, workspace, readOnly: false, approver: true })

const decide = (token: string, id: string, verb: "approve" | "reject" = "approve") =>
  fetch(relay.url.replace(/\/mcp$/, `/tasks/${id}/${verb}`), {
    method: "POST",
    headers: { authorization: `Bearer ${token}` }
  })

beforeAll(async () => {
  tokens.alice = await createToken(env, "alice", acme)
  const started = startHttpRelay(env)
  ;[tokens.bob, tokens.reader, tokens.boss, tokens.eve, tokens.otherBoss] = await Promise.all([
    createToken(env, "bob", acme),
    createToken(env, "acme-reader", acme, true),
    approver("boss", acme),
    createToken(env, "eve", globex),
    approver("globex-boss", globex)
  ])
  relay = await started
}, 180_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
  await relay?.stop()
})

const connect = async (token: string) => {
  const c = await connectHttp(relay.url, token)
  clients.push(c)
  return c
}

describe("tasks in team mode", () => {
  it("binds names to the token, gates approval to approver tokens, and isolates workspaces", async () => {
    const [alice, bob, reader, eve] = await Promise.all([
      connect(tokens.alice!),
      connect(tokens.bob!),
      connect(tokens.reader!),
      connect(tokens.eve!)
    ])
    // Names come from the token: another name is forbidden, none is filled in.
    expect(errorOf(await alice.call("relay_post_task", { title: "x", written_by: "bob" })).code).toBe("forbidden")
    const posted = outputOf(
      await alice.call("relay_post_task", { title: "drop the legacy sessions table", needs_approval: true })
    )
    expect(posted.task.written_by).toBe("alice")
    expect(posted.task.status).toBe("awaiting_approval")
    const id = posted.task.id

    // Nobody claims it before a person approves; a read-only token claims nothing at all.
    expect(errorOf(await bob.call("relay_claim_task", { task_id: id })).code).toBe("invalid_input")
    expect(errorOf(await reader.call("relay_claim_task", {})).code).toBe("forbidden")
    expect(errorOf(await bob.call("relay_claim_task", { task_id: id, claimed_by: "alice" })).code).toBe("forbidden")

    // Assistants' tokens cannot approve, not even the author's own task; another workspace's approver finds no task.
    for (const t of [tokens.alice!, tokens.bob!, tokens.reader!]) expect((await decide(t, id)).status).toBe(403)
    expect((await decide(tokens.otherBoss!, id)).status).toBe(404)
    expect(outputOf(await alice.call("relay_list_tasks", {})).tasks[0]?.status).toBe("awaiting_approval")

    // An approver token opens no MCP session.
    const refused = await rawPost(relay.url, initializeBody, { authorization: `Bearer ${tokens.boss}` })
    expect(refused.status).toBe(403)

    const approved = await decide(tokens.boss!, id)
    expect(approved.status).toBe(200)
    expect(((await approved.json()) as { task: { status: string; decided_by: string } }).task).toMatchObject({
      status: "open",
      decided_by: "boss"
    })
    expect((await decide(tokens.boss!, id)).status).toBe(409)

    const claim = outputOf(await bob.call("relay_claim_task", {}))
    expect(claim.task?.id).toBe(id)
    expect(claim.task?.claimed_by).toBe("bob")
    const taken = errorOf(await alice.call("relay_claim_task", { task_id: id }))
    expect(taken.code).toBe("already_claimed")
    expect(taken.message).toContain("bob")

    // The reader sees the board, filtered by holder; the other workspace sees nothing of it.
    expect(outputOf(await reader.call("relay_list_tasks", { claimed_by: "bob" })).tasks.map((t) => t.id)).toEqual([id])
    const theirs = outputOf(await eve.call("relay_list_tasks", {}))
    expect(theirs.tasks).toEqual([])
    expect(errorOf(await eve.call("relay_claim_task", { task_id: id })).code).toBe("task_not_found")
  })
})
