import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { memoryFile, memoryText } from "../../bench/memoryFile.js"
import { countFacts } from "../../src/cli/common.js"
import { ownGraph, stackOn } from "../support/ownGraph.js"
import { fileWith, openParents, runCli, withLine } from "./importCli.js"

/** Issue 40, finding 1: the 3,001-fact chain that stopped after 4.8 s with "could not be reached". */
it.scoped(
  "npm run import of the issue's 3,001-fact chain lands whole, every fork marked",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("import_cli_chain")
      const file = memoryFile({ threads: 1, perThread: 3001 })
      expect(file.facts).toBe(3001)
      const done = yield* runCli("import", [yield* fileWith(memoryText(file))], graph)
      expect(done.stderr).toBe(`import: ${file.lines.length} of ${file.lines.length} lines, 3001 fact(s) written\n`)
      expect(done.code).toBe(0)
      expect(done.stdout).toMatch(new RegExp(`^imported into graph ${graph}: 3001 fact\\(s\\), `))
      expect(yield* openParents.pipe(Effect.provide(stackOn(graph)))).toEqual([...new Set(file.openForks)].sort())
    }),
  600_000
)

/**
 * Issue 40, finding 1: a generated 50,000-fact file (1,000 threads of 50) stopped at 13,000, and each
 * `--merge` rerun landed one batch and failed again, leaving forks unmarked. As a person runs it:
 * a line refused by number with nothing written; the file stopped halfway (the process killed once
 * its progress passes 20,000 lines) and finished by one `--merge` rerun, every fact there once,
 * every open fork marked, `check-db --verify` clean.
 */
it.scoped(
  "npm run import of 50,000 facts: a broken line refused, a run killed halfway finished by one --merge rerun",
  () =>
    Effect.gen(function*() {
      const graph = yield* ownGraph("import_cli_50k")
      const file = memoryFile({ threads: 1000, perThread: 50 })
      expect(file.facts).toBe(50_000)
      const lines = file.lines.length

      // The last line cut short, as a copy that stopped mid-write.
      const cut = `${memoryText(file).slice(0, -20)}\n`
      const refused = yield* runCli("import", [yield* fileWith(cut)], graph)
      expect(refused.code).toBe(1)
      expect(refused.stdout).toBe("")
      expect(refused.stderr).toMatch(
        new RegExp(
          `^nothing was imported: line ${lines}: is not a record of a Relay export \\(JSON with a known kind\\)\\n$`
        )
      )
      // A secret in a name (finding 5's shape): refused by line and field, the secret not echoed.
      const secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
      const at = file.lines.findIndex((l, i) => i >= 30_000 && l.startsWith("{\"kind\":\"fact\"")) + 1
      const named = yield* runCli(
        "import",
        [yield* fileWith(withLine(file.lines, at, (r) => (r["written_by"] = secret)))],
        graph
      )
      expect(named.code).toBe(1)
      expect(named.stderr).toMatch(
        new RegExp(`^nothing was imported: line ${at}: written_by looks like it contains a credential`)
      )
      expect(named.stderr).not.toContain(secret)
      expect(yield* countFacts.pipe(Effect.provide(stackOn(graph)))).toBe(0)

      const path = yield* fileWith(memoryText(file))
      const stopped = yield* runCli("import", [path], graph, (child) => {
        child.stderr?.on("data", (chunk: Buffer) => {
          if (/import: [2-9]\d{4} of /.test(chunk.toString())) child.kill("SIGKILL")
        })
      })
      // Killed by the test, not stopped by the database.
      expect(stopped.code).toBe(-1)
      expect(stopped.stderr).not.toMatch(/could not be reached|stopped at/)
      const partway = yield* countFacts.pipe(Effect.provide(stackOn(graph)))
      expect(partway).toBeGreaterThanOrEqual(19_000)
      expect(partway).toBeLessThan(file.facts)

      const again = yield* runCli("import", [path], graph)
      expect(again.code).toBe(1)
      expect(again.stderr).toMatch(/already holds facts: import into an empty graph, or pass --merge/)

      const resumed = yield* runCli("import", [path, "--merge"], graph)
      expect(resumed.stderr).not.toMatch(/could not be reached|stopped at/)
      expect(resumed.code).toBe(0)
      // Progress: about every 10,000 lines, the end once.
      const progress = [...resumed.stderr.matchAll(/^import: (\d+) of (\d+) lines/gm)].map((m) => Number(m[1]))
      expect(progress.at(-1)).toBe(lines)
      expect(progress).toEqual([...new Set(progress)].sort((a, b) => a - b))
      expect(progress.length).toBeGreaterThanOrEqual(5)
      const written = /: (\d+) fact\(s\), /.exec(resumed.stdout)
      expect(Number(written?.[1])).toBe(file.facts - partway)
      expect(yield* countFacts.pipe(Effect.provide(stackOn(graph)))).toBe(file.facts)

      expect(yield* openParents.pipe(Effect.provide(stackOn(graph)))).toEqual([...new Set(file.openForks)].sort())
      // On a shared 2-core machine one of verify's range statements can pass the time limit: it then
      // says so (and that the database answers); it is run again, at most three times.
      let verified = yield* runCli("check-db", ["--verify"], graph)
      for (let i = 0; i < 2 && /verify: stopped/.test(verified.stderr); i++) {
        verified = yield* runCli("check-db", ["--verify"], graph)
      }
      expect(verified.stdout).toMatch(new RegExp(`verify: +${file.facts} facts and \\d+ forks,`))
      expect(verified.stdout).toContain("every open pair has its fork mark")
      expect(verified.code).toBe(0)
    }),
  600_000
)
