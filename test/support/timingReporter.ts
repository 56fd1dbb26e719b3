import { writeFileSync } from "node:fs"
import { relative } from "node:path"
import type { Reporter, TestModule } from "vitest/node"

/**
 * Where a run's time goes, file by file: the harness (prepare), importing the file and all it
 * imports (collect), and the tests and hooks themselves. `npm run test:timings` prints the 20
 * slowest files and writes every file's numbers to test-timings.json; a file that needs more than a
 * few seconds of tests is a candidate for test:slow (docs/testing.md).
 */
export default class TimingReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const rows = modules.map((m) => {
      const d = m.diagnostic()
      const imports = Object.entries(d.importDurations)
        .sort(([, a], [, b]) => b.selfTime - a.selfTime)
        .slice(0, 3)
        .map(([file, t]) => `${relative(process.cwd(), file)} ${Math.round(t.selfTime)}ms`)
      return {
        file: relative(process.cwd(), m.moduleId),
        state: m.state(),
        prepare: Math.round(d.prepareDuration),
        collect: Math.round(d.collectDuration),
        setup: Math.round(d.setupDuration),
        tests: Math.round(d.duration),
        slowestImports: imports
      }
    })
    rows.sort((a, b) => b.prepare + b.collect + b.tests - (a.prepare + a.collect + a.tests))
    const sum = (k: "prepare" | "collect" | "tests") => rows.reduce((s, r) => s + r[k], 0)
    const out = process.env.TEST_TIMINGS_FILE ?? "test-timings.json"
    writeFileSync(out, JSON.stringify(rows, null, 2))
    const s = (ms: number) => (ms / 1000).toFixed(1).padStart(6)
    console.log(`\n  prepare collect  tests  (seconds, ${rows.length} files; all in ${out})`)
    for (const r of rows.slice(0, 20)) console.log(`  ${s(r.prepare)} ${s(r.collect)} ${s(r.tests)}  ${r.file}`)
    console.log(`  ${s(sum("prepare"))} ${s(sum("collect"))} ${s(sum("tests"))}  total`)
  }
}
