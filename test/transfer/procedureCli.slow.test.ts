import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { connectRelay } from "../support/mcpClient.js"
import { ownGraph } from "../support/ownGraph.js"
import { outputOf } from "../support/toolOutputs.js"
import { fileWith, runCli } from "./importCli.js"

/**
 * Issue 44's export and import as a person runs them: procedures written by an assistant through its
 * MCP client, `npm run export` (dist/cli/export.js), `npm run import` of that file into a new graph,
 * and an export of the copy, byte for byte the first; the copy's assistant then gets v2 first, with
 * its lesson first and each version's own counts.
 */
it.scoped("a memory with a failed procedure and its v2 goes through the export and import CLIs unchanged", () =>
  Effect.gen(function*() {
    const source = yield* ownGraph("procedure_cli_source")
    const copy = yield* ownGraph("procedure_cli_copy")
    const relay = yield* Effect.acquireRelease(
      Effect.promise(() => connectRelay({ graph: source })),
      (r) => Effect.promise(() => r.close())
    )
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => relay.call(name, args)).pipe(Effect.map(outputOf))
    const v1 = (yield* call("relay_save_fact", {
      content: "restart the redis cache during a spike",
      steps: ["drain traffic", "restart redis", "warm up"],
      preconditions: ["page the on-call"],
      written_by: "ann",
      session_id: "s"
    })) as { fact: { id: string } }
    const failed = (yield* call("relay_record_run", {
      procedure_id: v1.fact.id,
      outcome: "failure",
      failed_step: 2,
      note: "an unannounced deploy caused the spike",
      lesson: "check deploy history within 30 minutes before restarting the cache",
      ran_by: "bob"
    })) as { revision?: { fact: { id: string } } }
    const v2 = failed.revision!.fact.id
    yield* call("relay_record_run", { procedure_id: v2, outcome: "success", ran_by: "cy" })

    const first = yield* fileWith("")
    const exported = yield* runCli("export", ["--out", first, "--graph", source], source)
    expect(exported.code, exported.stderr).toBe(0)
    const imported = yield* runCli("import", [first, "--graph", copy], copy)
    expect(imported.code, imported.stderr).toBe(0)
    const second = yield* fileWith("")
    expect((yield* runCli("export", ["--out", second, "--graph", copy], copy)).code).toBe(0)
    const text = readFileSync(first, "utf8")
    expect(text).toContain("\"kind\":\"run\"")
    expect(readFileSync(second, "utf8")).toBe(text)

    const reader = yield* Effect.acquireRelease(
      Effect.promise(() => connectRelay({ graph: copy })),
      (r) => Effect.promise(() => r.close())
    )
    const found = outputOf(
      yield* Effect.promise(() => reader.call("relay_find_procedure", { goal: "restart the redis cache" }))
    )
    const best = found.procedures[0]!
    expect(best.fact.id).toBe(v2)
    expect(best.preconditions[0]).toBe("check deploy history within 30 minutes before restarting the cache")
    expect(best.runs).toEqual({ success: 1, failure: 0, rate: 0.667 })
    expect(best.earlier.map((e) => [e.id, e.runs])).toEqual([[v1.fact.id, { success: 0, failure: 1, rate: 0.333 }]])
  }))
