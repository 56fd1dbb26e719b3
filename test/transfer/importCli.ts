/**
 * `npm run import` as a person runs it: the built `dist/cli/import.js` (and `check-db.js`) as
 * separate processes on this run's FalkorDB, a file written to a temporary directory.
 */
import { Effect } from "effect"
import { type ChildProcess, execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { FactStore } from "../../src/services/FactStore.js"

const root = resolve(fileURLToPath(import.meta.url), "..", "..", "..")

export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** The environment a person's shell gives the CLI: this run's FalkorDB, the graph, nothing else of ours. */
export const dbEnv = (graph: string) => {
  const { host, password, port } = inject("falkordb")
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    USER: "ops",
    FALKORDB_HOST: host,
    FALKORDB_PORT: String(port),
    FALKORDB_PASSWORD: password,
    RELAY_GRAPH: graph
  }
}

/**
 * Runs `node dist/cli/<name>.js args`; `started` sees the child (to stop it partway). The exit
 * code of a child ended by a signal is -1.
 */
export const runCli = (
  name: string,
  args: ReadonlyArray<string>,
  graph: string,
  started?: (child: ChildProcess) => void
) =>
  Effect.async<Run>((done) => {
    const child = execFile(
      process.execPath,
      [join(root, "dist", "cli", `${name}.js`), ...args],
      { env: dbEnv(graph), timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done(Effect.succeed({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : -1,
          stdout,
          stderr
        }))
    )
    started?.(child)
  })

/** A file of `text` in a temporary directory, removed with the scope. */
export const fileWith = (text: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = mkdtempSync(join(tmpdir(), "relay-import-cli-"))
      const path = join(dir, "memory.jsonl")
      writeFileSync(path, text)
      return { dir, path }
    }),
    ({ dir }) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map(({ path }) => path))

/** Every parent with an open conflict, as relay_detect_conflicts pages through them (a parent whose children run past a page continues on the next). */
export const openParents = Effect.gen(function*() {
  const store = yield* FactStore
  const parents = new Set<string>()
  let page = yield* store.openConflicts({ limit: 100, after: null, children: 20, asOf: null })
  for (const c of page.conflicts) parents.add(c.parent.id)
  while (page.next !== null) {
    page = yield* store.openConflicts({ limit: 100, after: page.next, children: 20 })
    for (const c of page.conflicts) parents.add(c.parent.id)
  }
  return [...parents].sort()
})

/** The file's lines with line `n` (1 is the header) changed by `change`. */
export const withLine = (lines: ReadonlyArray<string>, n: number, change: (record: Record<string, unknown>) => void) =>
  `${
    lines.map((l, i) => {
      if (i !== n - 1) return l
      const record = JSON.parse(l) as Record<string, unknown>
      change(record)
      return JSON.stringify(record)
    }).join("\n")
  }\n`
