import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { taskCountDrift } from "../../src/layers/tasks/taskCounts.js"
import { exportText, importText } from "../../src/layers/transfer/transferText.js"
import { FactStore } from "../../src/services/FactStore.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { SecretScanner } from "../../src/services/SecretScanner.js"
import { TaskStore } from "../../src/services/TaskStore.js"
import { onFreshTestClock, relayTestLayer } from "../support/testLayer.js"

/**
 * Tasks travel in an export: each task as it stands (a claim is not carried: the task is open in
 * the copy), the notes agents left, and the queue's order. export -> import -> export gives the
 * same bytes, a merge adds nothing twice, and a file whose task names a fact it lacks, or whose
 * title holds a secret, writes nothing.
 */
type Stack = FactStore | GraphDatabase | SecretScanner | TaskStore

class Copy extends Context.Tag("test/TaskCopy")<Copy, Context.Context<Stack>>() {}
const CopyLive = Layer.scoped(Copy, Layer.build(relayTestLayer("task_transfer_copy")))
const onCopy = <A, E>(effect: Effect.Effect<A, E, Stack>) => Effect.flatMap(Copy, (ctx) => Effect.provide(effect, ctx))

const wipe = Effect.flatMap(GraphDatabase, (db) => db.write("MATCH (n) DETACH DELETE n"))
const lease = 300_000

/** The story: eight tasks through every state a task can be in, a second of TestClock apart. */
const writeTasks = Effect.gen(function*() {
  const facts = yield* FactStore
  const tasks = yield* TaskStore
  const tick = TestClock.adjust("1 second")
  const factId = randomUUID()
  yield* facts.save({
    id: factId,
    content: "the export runs nightly",
    writtenBy: "cursor",
    sessionId: "s",
    parentId: null
  })
  const t = Array.from({ length: 8 }, () => randomUUID())
  const post = (i: number, needsApproval = false, maxAttempts = 3) =>
    Effect.zipRight(
      tick,
      tasks.post({
        id: t[i]!,
        title: `task ${i}`,
        detail: i === 0 ? "with a detail" : null,
        writtenBy: "zed",
        about: i === 0 ? [factId] : [],
        needsApproval,
        maxAttempts
      })
    )
  const claim = (i: number, by: string) =>
    Effect.zipRight(
      tick,
      tasks.claim({ claimedBy: by, taskId: t[i]!, fence: null, leaseMillis: lease, claimId: randomUUID() })
    )
  const finish = (i: number, by: string, fence: number, outcome: "done" | "failed", note: string | null) =>
    Effect.zipRight(tick, tasks.finish({ taskId: t[i]!, claimedBy: by, fence, outcome, note }))
  yield* post(0)
  yield* post(1)
  yield* post(2)
  yield* post(3)
  yield* post(4, true)
  yield* post(5, true)
  yield* post(6, true)
  yield* post(7, false, 1)
  yield* claim(1, "cursor") // held at export: open in the copy
  const c2 = yield* claim(2, "cursor")
  yield* finish(2, "cursor", c2!.fence, "done", "shipped")
  yield* Effect.zipRight(tick, tasks.decide(t[5]!, false, "alice"))
  yield* Effect.zipRight(tick, tasks.decide(t[6]!, true, "alice")) // queued after 0 and 1
  const c3 = yield* claim(3, "claude")
  yield* finish(3, "claude", c3!.fence, "failed", "the dump timed out") // requeued after 6, attempts 1
  const c7 = yield* claim(7, "claude")
  yield* finish(7, "claude", c7!.fence, "failed", null) // its only attempt: failed for good
  return t
})

const claimAll = Effect.gen(function*() {
  const tasks = yield* TaskStore
  const order: Array<string> = []
  for (;;) {
    const got = yield* tasks.claim({
      claimedBy: "gemini",
      taskId: null,
      fence: null,
      leaseMillis: lease,
      claimId: randomUUID()
    })
    if (got === null) return order
    order.push(got.task.id)
  }
})

const listed = Effect.flatMap(
  TaskStore,
  (tasks) => tasks.list({ status: null, claimedBy: null, thread: null, limit: 100, after: null })
)

layer(Layer.merge(relayTestLayer("task_transfer"), CopyLive), { timeout: 60_000 })(
  "tasks in export and import",
  (it) => {
    it.effect("every task state, its notes and the queue's order survive export -> import -> export byte for byte", () =>
      onFreshTestClock(Effect.gen(function*() {
        yield* wipe
        yield* onCopy(wipe)
        const t = yield* writeTasks
        const text = yield* exportText
        const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
        expect(lines.filter((l) => l["kind"] === "task")).toHaveLength(8)
        // Notes: the done task's, and both failures (a failure leaves one with or without a note).
        expect(lines.filter((l) => l["kind"] === "task_note").map((l) => l["note"])).toEqual([
          "shipped",
          "the dump timed out",
          null
        ])
        const held = lines.find((l) => l["id"] === t[1])!
        expect(held["status"]).toBe("open")

        // The operator vouches for the file's approvals (--keep-approvals): the copy is the same.
        const counts = yield* onCopy(importText(text, { merge: false, approvals: true }))
        expect([counts.tasks, counts.task_notes, counts.refused]).toEqual([8, 3, []])
        expect(yield* onCopy(exportText)).toBe(text)

        // What a reader sees is the same, but for the claim that stayed behind.
        const source = yield* listed
        const copy = yield* onCopy(listed)
        const view = (ts: typeof source.tasks) =>
          [...ts].map((x) => ({ ...x, status: x.status === "claimed" ? "open" : x.status, lease_expires_at: null }))
            .map((x) => (x.id === t[1] ? { ...x, claimed_by: null } : x))
            .sort((a, b) => (a.id < b.id ? -1 : 1))
        expect(view(copy.tasks)).toEqual(view(source.tasks))
        expect(copy.totals).toEqual({ ...source.totals, open: source.totals.open + 1, claimed: 0 })
        const failed = copy.tasks.find((x) => x.id === t[3])!
        expect([failed.status, failed.attempts, failed.last_note?.note]).toEqual(["open", 1, "the dump timed out"])

        // A merge of the same file adds nothing.
        const again = yield* onCopy(importText(text, { merge: true }))
        expect([again.facts, again.tasks, again.task_notes, again.skipped]).toEqual([0, 0, 0, lines.length - 1])
        // Its counters (taskCounts.ts) counted each task once, as a recount does.
        expect((yield* onCopy(listed)).totals).toEqual(copy.totals)
        expect(yield* onCopy(Effect.flatMap(GraphDatabase, (db) => taskCountDrift(db)))).toEqual([])
        expect(yield* onCopy(exportText)).toBe(text)

        // The queue in the copy: by when each task last entered one (posted, approved, requeued), not by when it was posted.
        expect(yield* onCopy(claimAll)).toEqual([t[0], t[1], t[6], t[3]])
      })))

    it.effect("a task stamped before the fact it names, the finisher not the next claimer, a merge keeping a task's notes", () =>
      onFreshTestClock(Effect.gen(function*() {
        yield* wipe
        yield* onCopy(wipe)
        const facts = yield* FactStore
        const tasks = yield* TaskStore
        // A burst of saves in one millisecond: the graph's clock runs ahead of the process's, which stamps tasks.
        const ids = Array.from({ length: 3 }, () => randomUUID())
        for (const id of ids) {
          yield* facts.save({ id, content: `fact ${id}`, writtenBy: "cursor", sessionId: "s", parentId: null })
        }
        const task = randomUUID()
        const base = { title: "t", detail: null, writtenBy: "zed", needsApproval: false, maxAttempts: 3 }
        yield* tasks.post({ ...base, id: task, about: [ids[2]!] })
        const claimAs = (by: string) =>
          tasks.claim({ claimedBy: by, taskId: task, fence: null, leaseMillis: lease, claimId: randomUUID() })
        const alpha = yield* claimAs("alpha")
        yield* TestClock.adjust("1 second")
        yield* tasks.finish({
          taskId: task,
          claimedBy: "alpha",
          fence: alpha!.fence,
          outcome: "failed",
          note: "timed out"
        })
        const beta = yield* claimAs("beta")
        const shown = (yield* listed).tasks[0]!
        expect([shown.claimed_by, shown.last_note?.by]).toEqual(["beta", "alpha"])

        const text = yield* exportText
        const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
        const kinds = lines.slice(1).map((l) => l["kind"])
        expect(kinds.indexOf("task")).toBeLessThan(kinds.lastIndexOf("fact"))
        expect(lines.find((l) => l["kind"] === "task")!["last_finish"]).toMatchObject({
          by: "alpha",
          outcome: "failed"
        })
        expect((yield* onCopy(importText(text, { merge: false }))).tasks).toBe(1)
        expect(yield* onCopy(exportText)).toBe(text)
        expect((yield* onCopy(listed)).tasks[0]!.last_note?.by).toBe("alpha")

        // The task moves on in the original; merged, the copy keeps its task as it was and takes none of its new notes.
        yield* TestClock.adjust("1 second")
        yield* tasks.finish({ taskId: task, claimedBy: "beta", fence: beta!.fence, outcome: "failed", note: "again" })
        const merged = yield* onCopy(importText(yield* exportText, { merge: true }))
        expect([merged.tasks, merged.task_notes]).toEqual([0, 0])
        expect(yield* onCopy(exportText)).toBe(text)
      })))

    it.effect("a task naming a fact the file and graph lack, a note before its task, or a secret: refused, nothing written", () =>
      onFreshTestClock(Effect.gen(function*() {
        yield* wipe
        yield* onCopy(wipe)
        yield* writeTasks
        const text = yield* exportText
        const lines = text.trimEnd().split("\n")
        const taskAt = lines.findIndex((l) => l.includes("\"kind\":\"task\"") && l.includes("\"about\":[\""))
        const noteAt = lines.findIndex((l) => l.includes("\"kind\":\"task_note\""))
        const cases: Array<[string, string]> = [
          // The fact the first task names is left out of the file.
          [lines.filter((l) => !l.includes("\"kind\":\"fact\"")).join("\n"), `line ${taskAt}: about: no fact`],
          [
            lines.filter((_, i) => !(lines[i]!.includes("\"kind\":\"task\"") && i < noteAt)).join("\n"),
            "task_id: no task"
          ],
          [
            lines.map((l, i) => (i === taskAt ? l.replace("task 0", "password=hunter2hunter2") : l)).join("\n"),
            `line ${taskAt + 1}: title`
          ]
        ]
        for (const [file, message] of cases) {
          const refused = yield* Effect.flip(onCopy(importText(file, { merge: false })))
          expect(refused.message).toContain(message)
          expect((yield* onCopy(listed)).tasks).toEqual([])
        }
      })))
  }
)
