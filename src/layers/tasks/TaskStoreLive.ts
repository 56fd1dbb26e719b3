import { Effect, Layer } from "effect"
import { GraphDatabase } from "../../services/GraphDatabase.js"
import { TaskStore, type TaskStoreShape } from "../../services/TaskStore.js"
import { stampNow } from "../database/stampNow.js"
import { matchPrefixes } from "../factStore/prefixes.js"
import { briefing } from "./briefing.js"
import { claim } from "./claim.js"
import { decide } from "./decide.js"
import { finish } from "./finish.js"
import { list } from "./list.js"
import { post } from "./post.js"

const now = stampNow

/** TaskStore on the graph's connection: each operation is one statement file here. */
export const makeTaskStore = Effect.gen(function*() {
  const db = yield* GraphDatabase
  const store: TaskStoreShape = {
    post: (t) => Effect.flatMap(now, (n) => post(db, n, t)),
    claim: (r) => Effect.flatMap(now, (n) => claim(db, n, r)),
    finish: (r) => Effect.flatMap(now, (n) => finish(db, n, r)),
    list: (r) => Effect.flatMap(now, (n) => list(db, n, r)),
    decide: (id, approve, by) => Effect.flatMap(now, (n) => decide(db, n, id, approve, by)),
    briefing: (r) => Effect.flatMap(now, (n) => briefing(db, n, r)),
    idsStartingWith: (prefixes) => matchPrefixes(db, prefixes, "Task")
  }
  return store
})

/** Needs GraphDatabase (the same connection FactStore uses). */
export const TaskStoreLive = Layer.effect(TaskStore, makeTaskStore)
