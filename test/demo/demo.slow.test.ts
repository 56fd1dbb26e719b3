/**
 * The command-line tools as a user runs them: `node dist/cli/demo.js`, `seed.js` and `check-db.js`
 * as separate processes against this run's FalkorDB (and, once, the embedded server in a temporary
 * data directory).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { type AddressInfo, createServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { freePort } from "../support/falkordbServer.js"
import { withRawDatabase } from "../support/rawDatabase.js"
import { testGraphName } from "../support/testLayer.js"

const root = resolve(fileURLToPath(import.meta.url), "..", "..", "..")
const cli = (name: string) => join(root, "dist", "cli", `${name}.js`)

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs a built CLI with exactly the given environment (nothing inherited but PATH and HOME). */
const runCli = (name: string, env: Record<string, string>, args: ReadonlyArray<string> = []) =>
  new Promise<Run>((done) => {
    execFile(
      process.execPath,
      [cli(name), ...args],
      { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, timeout: 45_000 },
      (error, stdout, stderr) =>
        done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    )
  })

const dbEnv = (graph: string) => {
  const { host, password, port } = inject("falkordb")
  return { FALKORDB_HOST: host, FALKORDB_PORT: String(port), FALKORDB_PASSWORD: password, RELAY_GRAPH: graph }
}

const withDb = withRawDatabase

const count = (graph: string, cypher: string) =>
  withDb(async (db) => {
    const r = await db.selectGraph(graph).roQuery<{ n: number }>(cypher)
    return r.data?.[0]?.n ?? 0
  })

const dropGraph = (graph: string) => withDb((db) => db.selectGraph(graph).delete().catch(() => undefined))

const ansi = /\u001b\[/

describe("npm run demo", () => {
  it("plays the whole story through dist/server.js, in its own graph, and leaves the user's graph alone", async () => {
    const userGraph = testGraphName("demo_user")
    await withDb((db) => db.selectGraph(userGraph).query("CREATE (:Fact {id: 'mine', content: 'my own memory'})"))
    try {
      const { password } = inject("falkordb")
      const r = await runCli("demo", dbEnv(userGraph))
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      const out = r.stdout
      // The fork, seen when cursor saves, found by detect and marked in the tree.
      expect(out).toMatch(
        /cursor\s+\w{8} "Store refresh tokens in Redis" .*⑂ fork! claude-desktop said "Store refresh tokens in httpOnly cookies"/
      )
      expect(out).toContain("open conflict under \"Auth uses short-lived access tokens with refresh tokens\":")
      expect(out).toContain("open conflict under \"Database migrations run in CI before each deploy\":")
      expect(out).toMatch(
        /\n {4}- {2}"Store refresh tokens in Redis" · cursor\n {4}- {2}"Store refresh tokens in httpOnly cookies" · claude-desktop\n/
      )
      expect(out).toContain("⑂ fork: open conflict")
      // The second fork is detail, not disagreement: recorded as compatible, both stand.
      expect(out).toMatch(
        /cursor\s+\w{8} "A second engineer reviews every migration before it merges" .*⑂ fork! claude-desktop said "Each migration is one SQL file with a tested down step"/
      )
      expect(out).toContain(
        "= both stand: \"Each migration is one SQL file with a tested down step\" and \"A second engineer reviews every migration before it merges\""
      )
      expect(out).toMatch(/✓ "Database migrations run in CI before each deploy" · cursor ⑂ fork: both stand/)
      expect(out).toContain("open conflicts: none")
      // The decision, and the briefing that carries it to cursor.
      expect(out).toContain(
        "★ \"Store refresh tokens in Redis\" wins over ✗ \"Store refresh tokens in httpOnly cookies\""
      )
      expect(out).toMatch(
        /decision by claude-desktop: "Store refresh tokens in Redis" over .*"Redis wins because we need instant revocation"/
      )
      // The stale branch, from relay_get_impact and in the final tree.
      expect(out).toContain("⚠ distance 1  \"Guard the refresh endpoint with SameSite=Strict and a CSRF token\"")
      expect(out).toMatch(
        /"Store refresh tokens in Redis" · cursor\n {4}won over "Store refresh tokens in httpOnly cookies" because "Redis wins because we need instant revocation"/
      )
      expect(out).toContain("⚠ distance 2  \"Rotate the refresh cookie on every use\"")
      expect(out).toMatch(/└─ ⚠ "Rotate the refresh cookie on every use" · claude-desktop stale/)
      expect(out).toMatch(/✗ "Store refresh tokens in httpOnly cookies" · claude-desktop superseded \(loser\)/)
      expect(out).toMatch(/✓ "Store refresh tokens in Redis" · cursor ★ winner/)
      // A detail is marked as one, and a revision is one call.
      expect(out).toMatch(/"Key refresh tokens in Redis by user id with a 30-day TTL" .*\(detail\)/)
      expect(out).toContain(
        "★ \"Key refresh tokens in Redis by user id with a 14-day TTL\" revises ✗ \"Key refresh tokens in Redis by user id with a 30-day TTL\""
      )
      // A stale fact that still holds is confirmed: it and what builds on it read as current again.
      expect(out).toContain("✓ \"Guard the refresh endpoint with SameSite=Strict and a CSRF token\" holds again")
      expect(out).toContain("current again with it: \"Rotate the refresh cookie on every use\"")
      // Two assistants race for one task: one holds it, the other is told who; a destructive task waits for a person.
      expect(out).toMatch(/✓ (cursor|zed) holds "Fix the flaky login test" \(fencing token 1\)/)
      expect(out).toMatch(/✗ the other: already_claimed: task_id: claimed by (cursor|zed) until/)
      expect(out).toContain("awaits a person's approval")
      expect(out).toContain("✓ approved by a person; zed now holds it")
      // A runbook fails, learns a precondition, and the next agent gets v2 (issue 44).
      expect(out).toContain("✗ cursor's run failed at step 2: \"The spike came from an unannounced deploy")
      expect(out).toContain(
        "✓ zed asks for the goal and gets v2: check \"Check deploy history within 30 minutes before restarting cache\" first, then 3 steps (v1: 1 failed run)"
      )
      expect(out).toContain("✓ Every step showed what it should")
      // The client configuration for this install.
      expect(out).toContain("claude_desktop_config.json")
      expect(out).toContain(join(".cursor", "mcp.json"))
      expect(out).toContain(`"command": ${JSON.stringify(process.execPath)}`)
      expect(out).toContain(`${JSON.stringify(join(root, "dist", "server.js"))}`)
      expect(out).toContain(`"RELAY_GRAPH": ${JSON.stringify(userGraph)}`)
      expect(out).toContain(`"mcpServers": {`)
      // Plain text when stdout is not a terminal; no password anywhere.
      expect(out).not.toMatch(ansi)
      expect(out + r.stderr).not.toContain(password)
      // Its own graph is gone, and the user's graph holds exactly what it held.
      const demoGraph = /graph\s+(relay_demo_\d+_[0-9a-f]{4})/.exec(out)?.[1]
      expect(demoGraph).toBeDefined()
      expect(out).toContain(`Dropped the demo graph ${demoGraph}.`)
      expect(await withDb((db) => db.list())).not.toContain(demoGraph)
      expect(await count(userGraph, "MATCH (f:Fact) RETURN count(f) AS n")).toBe(1)
    } finally {
      await dropGraph(userGraph)
    }
  })

  it("exits 1 naming the step that did not show what it should, and still drops its graph", async () => {
    // Four calls a minute: the server refuses the fifth save, so the fork is never seen.
    const r = await runCli("demo", { ...dbEnv(testGraphName("demo_fail")), RELAY_RATE_LIMIT: "4" })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /^demo failed while saving "Store refresh tokens in Redis": relay_save_fact answered rate_limited: /m
    )
    expect(r.stdout).not.toContain("Every step showed what it should")
    const demoGraph = /graph\s+(relay_demo_\d+_[0-9a-f]{4})/.exec(r.stdout)?.[1]
    expect(r.stdout).toContain(`Dropped the demo graph ${demoGraph}.`)
    expect(await withDb((db) => db.list())).not.toContain(demoGraph)
  })
})

describe("npm run seed", () => {
  it("loads the story into an empty graph, refuses a graph with facts, and adds it again only with --force", async () => {
    const graph = testGraphName("seed")
    try {
      const first = await runCli("seed", dbEnv(graph))
      expect(first.stderr).toBe("")
      expect(first.code).toBe(0)
      expect(first.stdout).toContain(`Loaded 10 facts and 2 decisions into graph ${graph}.`)
      expect(await count(graph, "MATCH (f:Fact) RETURN count(f) AS n")).toBe(10)
      expect(await count(graph, "MATCH ()-[r:SUPERSEDES]->() RETURN count(r) AS n")).toBe(1)
      expect(await count(graph, "MATCH ()-[r:COMPATIBLE]->() RETURN count(r) AS n")).toBe(1)
      expect(await count(graph, "MATCH ()-[r:BUILDS_ON]->() RETURN count(r) AS n")).toBe(8)

      const again = await runCli("seed", dbEnv(graph))
      expect(again.code).toBe(1)
      expect(again.stderr.trim()).toMatch(/^The graph \S+ already has 10 fact\(s\);.*--force/)
      expect(again.stderr.trim().split("\n")).toHaveLength(1)
      expect(await count(graph, "MATCH (f:Fact) RETURN count(f) AS n")).toBe(10)

      const forced = await runCli("seed", dbEnv(graph), ["--force"])
      expect(forced.code).toBe(0)
      expect(await count(graph, "MATCH (f:Fact) RETURN count(f) AS n")).toBe(20)

      const bad = await runCli("seed", dbEnv(graph), ["--forse"])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain("usage")
    } finally {
      await dropGraph(graph)
    }
  })
})

describe("npm run copy", () => {
  it("snapshots a graph into a new one with GRAPH.COPY, never over an existing graph", async () => {
    const [graph, copy, empty] = [testGraphName("copy_src"), testGraphName("copy_dst"), testGraphName("copy_none")]
    try {
      expect((await runCli("seed", dbEnv(graph))).code).toBe(0)
      const copied = await runCli("copy", dbEnv(graph), ["--to", copy])
      expect([copied.code, copied.stderr.trim()]).toEqual([0, `copied graph ${graph} to ${copy}`])
      for (const q of ["MATCH (f:Fact) RETURN count(f) AS n", "MATCH ()-[r:SUPERSEDES]->() RETURN count(r) AS n"]) {
        expect(await count(copy, q)).toBe(await count(graph, q))
      }
      // The copy is a memory of its own: what is written to it stays out of the original.
      expect((await runCli("seed", dbEnv(copy), ["--force"])).code).toBe(0)
      expect(await count(graph, "MATCH (f:Fact) RETURN count(f) AS n")).toBe(10)
      const again = await runCli("copy", dbEnv(graph), ["--to", copy])
      expect([again.code, again.stderr.trim()]).toEqual([1, `graph ${copy} already exists: name a new graph with --to`])
      expect(await count(copy, "MATCH (f:Fact) RETURN count(f) AS n")).toBe(20)
      const nothing = await runCli("copy", dbEnv(empty), ["--to", `${empty}_2`])
      expect([nothing.code, nothing.stderr.trim()]).toEqual([1, `graph ${empty} holds nothing to copy`])
      expect((await runCli("copy", dbEnv(graph), ["--to", "no spaces"])).code).toBe(2)
    } finally {
      await Promise.all([graph, copy, empty, `${empty}_2`].map(dropGraph))
    }
  })
})

describe("npm run check-db", () => {
  it("names the configured database, its FalkorDB version and the graph's fact count, never the password", async () => {
    const graph = testGraphName("checkdb")
    const { host, password, port } = inject("falkordb")
    await withDb((db) => db.selectGraph(graph).query("CREATE (:Fact {id: 'a'}), (:Fact {id: 'b'})"))
    try {
      const r = await runCli("check-db", dbEnv(graph))
      expect(r.code, `${r.stdout}${r.stderr}`).toBe(0)
      expect(r.stdout).toContain(`configured FalkorDB at ${host}:${port}`)
      expect(r.stdout).toMatch(/^reachable: yes$/m)
      expect(r.stdout).toMatch(/^FalkorDB:\s+\d+\.\d+\.\d+ on (valkey|redis) \d+/m)
      expect(r.stdout).toContain(`graph:     ${graph} (RELAY_GRAPH), 2 facts`)
      expect(r.stdout + r.stderr).not.toContain(password)

      // The same database by URL: the password inside it is masked.
      const byUrl = await runCli("check-db", {
        FALKORDB_URL: `falkor://:${encodeURIComponent(password)}@${host}:${port}`,
        RELAY_GRAPH: graph
      })
      expect(byUrl.code).toBe(0)
      expect(byUrl.stdout).toContain(`FALKORDB_URL falkor://:****@${host}:${port}`)
      expect(byUrl.stdout + byUrl.stderr).not.toContain(password)
      expect(byUrl.stdout + byUrl.stderr).not.toContain(encodeURIComponent(password))

      // A wrong password is told apart from a dead server.
      const wrong = await runCli("check-db", { ...dbEnv(graph), FALKORDB_PASSWORD: "not-the-password" })
      expect(wrong.code).toBe(1)
      expect(wrong.stderr.trim()).toMatch(/refused the password/)
      expect(wrong.stdout + wrong.stderr).not.toContain("not-the-password")
    } finally {
      await dropGraph(graph)
    }
  })

  it("exits 1 with one sentence saying what to do when nothing answers, without the password", async () => {
    const closed = await freePort()
    const secret = "s3cret-never-printed-0123456789"
    for (
      const env of [
        { FALKORDB_HOST: "127.0.0.1", FALKORDB_PORT: String(closed), FALKORDB_PASSWORD: secret },
        { FALKORDB_URL: `falkor://:${secret}@127.0.0.1:${closed}` }
      ]
    ) {
      const r = await runCli("check-db", env)
      expect(r.code).toBe(1)
      expect(r.stdout).toMatch(/^reachable: no$/m)
      const message = r.stderr.trim()
      expect(message.split("\n")).toHaveLength(1)
      expect(message).toMatch(new RegExp(`^Nothing answers at \\S*127\\.0\\.0\\.1:${closed}: start that server .*\\.$`))
      expect(r.stdout + r.stderr).not.toContain(secret)
    }
  })
})

/**
 * A stand-in for a server in a state a real one passes through too briefly to catch: it accepts
 * connections and answers every command with `reply` (or nothing, when null).
 */
const standIn = async (reply: string | null) => {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    // One reply a command: a client sends its handshake's commands in one write.
    socket.on("data", (data) => {
      if (reply !== null) socket.write(reply.repeat(data.toString().match(/(?:^|\r\n)\*\d+\r\n\$/g)?.length ?? 1))
    })
    socket.on("error", () => undefined)
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => done())
      })
  }
}

describe("check-db on a server that is there but not ready", () => {
  it("says a loading server is loading, and a silent one did not answer in time, never that nothing answers", async () => {
    for (
      const [reply, expected] of [
        [
          "-LOADING Valkey is loading the dataset in memory\r\n",
          /^The database at \S*127\.0\.0\.1:\d+ answers but is loading/
        ],
        [
          null,
          /^No answer in time from \S*127\.0\.0\.1:\d+: if it runs, it is busy, so run the check again; if not, start/
        ]
      ] as const
    ) {
      const server = await standIn(reply)
      try {
        const r = await runCli("check-db", { FALKORDB_HOST: "127.0.0.1", FALKORDB_PORT: String(server.port) })
        expect(r.code, r.stderr).toBe(1)
        expect(r.stdout).toMatch(/^reachable: no$/m)
        expect(r.stderr.trim().split("\n")).toHaveLength(1)
        expect(r.stderr.trim()).toMatch(expected)
      } finally {
        await server.close()
      }
    }
  })
})

const dotEnvConfiguresDatabase = (() => {
  const file = join(root, ".env")
  return existsSync(file) && /^\s*FALKORDB_(URL|HOST|PORT)\s*=\s*\S/m.test(readFileSync(file, "utf8"))
})()

describe.skipIf(dotEnvConfiguresDatabase)("the embedded default", () => {
  it("check-db starts the embedded server of a fresh data dir, and the demo joins it", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "relay-demo-test-")), "data")
    const env = { RELAY_DATA_DIR: dataDir }
    try {
      const check = await runCli("check-db", env)
      expect(check.stderr).toBe("")
      expect(check.code).toBe(0)
      expect(check.stdout).toContain(`database:  embedded FalkorDB (data dir ${dataDir}`)
      expect(check.stdout).toContain("started the embedded server")
      expect(check.stdout).toContain("graph:     relay (RELAY_GRAPH), 0 facts")
      const demo = await runCli("demo", env)
      expect(demo.stderr).toBe("")
      expect(demo.code).toBe(0)
      expect(demo.stdout).toContain(`embedded FalkorDB (data dir ${dataDir}`)
      expect(demo.stdout).toContain("✓ Every step showed what it should")
      expect(demo.stdout).toContain(`"RELAY_DATA_DIR": ${JSON.stringify(dataDir)}`)
      const after = await runCli("check-db", env)
      expect(after.stdout).toContain("reachable: yes (the embedded server was running)")
      expect(after.stdout).toContain("graph:     relay (RELAY_GRAPH), 0 facts")
      const password = readFileSync(join(dataDir, "password"), "utf8").trim()
      expect(check.stdout + demo.stdout + after.stdout).not.toContain(password)
    } finally {
      const stop = await runCli("db", env, ["stop"])
      expect(stop.code).toBe(0)
      rmSync(resolve(dataDir, ".."), { recursive: true, force: true })
    }
  })
})
