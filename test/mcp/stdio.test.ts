import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { inject } from "vitest"
import { connectRelay, serverEntry } from "../support/mcpClient.js"
import { testGraphName } from "../support/testLayer.js"
import { errorOf, outputOf } from "../support/toolOutputs.js"

describe("dist/server.js over stdio", () => {
  it("lists the eighteen tools with derived schemas and annotations", async () => {
    const relay = await connectRelay({ process: true })
    try {
      // The version a client sees is package.json's, not a literal that drifts from it.
      const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))
      expect(relay.client.getServerVersion()).toEqual({ name: "relay", version })
      const { tools } = await relay.client.listTools()
      expect(tools.map((t) => t.name).sort()).toEqual([
        "relay_claim_task",
        "relay_confirm_fact",
        "relay_detect_conflicts",
        "relay_find_procedure",
        "relay_finish_task",
        "relay_get_briefing",
        "relay_get_clusters",
        "relay_get_context",
        "relay_get_current_state",
        "relay_get_impact",
        "relay_get_important_facts",
        "relay_list_tasks",
        "relay_post_task",
        "relay_record_run",
        "relay_resolve_conflict",
        "relay_retract_fact",
        "relay_save_fact",
        "relay_search"
      ])
      const save = tools.find((t) => t.name === "relay_save_fact")!
      expect(save.inputSchema.required).toEqual(["content", "written_by", "session_id"])
      expect(save.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false })
      expect(tools.find((t) => t.name === "relay_resolve_conflict")!.annotations).toMatchObject({
        idempotentHint: true
      })
      expect(tools.find((t) => t.name === "relay_retract_fact")!.annotations).toMatchObject({
        readOnlyHint: false,
        idempotentHint: true
      })
      for (
        const t of tools.filter((t) =>
          ![
            "relay_save_fact",
            "relay_resolve_conflict",
            "relay_retract_fact",
            "relay_confirm_fact",
            "relay_post_task",
            "relay_claim_task",
            "relay_finish_task",
            "relay_record_run"
          ].includes(t.name)
        )
      ) {
        expect(t.annotations?.readOnlyHint).toBe(true)
        expect(t.outputSchema?.type).toBe("object")
      }
    } finally {
      await relay.close()
    }
  })

  it("saves, forks and reads back through the SDK client", async () => {
    const relay = await connectRelay({ process: true })
    try {
      const root = await relay.call("relay_save_fact", {
        content: "Auth needs refresh tokens",
        written_by: "claude-desktop",
        session_id: "t1"
      })
      expect(root.isError).toBeFalsy()
      expect(root.content[0]?.text?.split("\n")[0]).toMatch(/not instructions/)
      const rootId = outputOf(root).fact.id
      await relay.call("relay_save_fact", {
        content: "Keep them in cookies",
        written_by: "claude-desktop",
        session_id: "t1",
        parent_fact_id: rootId
      })
      const b = await relay.call("relay_save_fact", {
        content: "Keep them in Redis",
        written_by: "cursor",
        session_id: "t2",
        parent_fact_id: rootId
      })
      expect(outputOf(b).fork!.siblings).toHaveLength(1)
      const ctx = await relay.call("relay_get_context", { fact_id: outputOf(b).fact.id })
      expect(outputOf(ctx).chain.map((f) => f.content)).toEqual([
        "Auth needs refresh tokens",
        "Keep them in Redis"
      ])
      const bad = await relay.call("relay_get_impact", { fact_id: "not-a-uuid" })
      expect(bad.isError).toBe(true)
      expect(errorOf(bad).code).toBe("invalid_input")
      expect(bad.content[0]?.text).toMatch(/^invalid_input: fact_id/)
    } finally {
      await relay.close()
    }
  })

  it("writes nothing but JSON-RPC messages to stdout", async () => {
    const { host, password, port } = inject("falkordb")
    const child = spawn(process.execPath, [serverEntry], {
      env: {
        PATH: process.env.PATH ?? "",
        FALKORDB_HOST: host,
        FALKORDB_PORT: String(port),
        FALKORDB_PASSWORD: password,
        RELAY_GRAPH: testGraphName("stdout")
      },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    const send = (msg: unknown) => child.stdin.write(JSON.stringify(msg) + "\n")
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
    })
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "relay_save_fact", arguments: { content: "stdout check", written_by: "raw", session_id: "s" } }
    })
    send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "relay_get_context", arguments: { fact_id: "bad" } }
    })
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (out.split("\n").filter((l) => l.trim() !== "").length >= 3) {
          clearInterval(check)
          resolve()
        }
      }, 20)
    })
    child.stdin.end()
    await new Promise((r) => child.once("exit", r))
    const lines = out.split("\n").filter((l) => l.trim() !== "")
    expect(lines.length).toBe(3)
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" })
  })
})
