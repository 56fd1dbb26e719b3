import type { Fact } from "../../domain/fact.js"
import type { FindProcedureOutput, Procedure, RecordRunOutput, Run, RunCounts } from "../../domain/procedures.js"
import { list, more, type Page, quote, type Render } from "./page.js"

/** "2 of 3 runs succeeded (rate 0.6)", or that nobody has run it: an untried procedure is offered as such. */
export const countsLine = (r: RunCounts): string =>
  r.success + r.failure === 0
    ? `never run (rate ${r.rate})`
    : `${r.success} of ${r.success + r.failure} runs succeeded (rate ${r.rate})`

/** The procedure as a reader must take it: its preconditions (the lesson first) before its steps. */
export const procedureLines = (x: Procedure, p: Page): Array<string> => [
  `v${x.version} ${p.fact(x.fact)}`,
  `  Runs: ${countsLine(x.runs)}${x.revised_by === null ? "" : `; revised by ${p.id(x.revised_by)}`}`,
  ...(x.preconditions.length === 0 ? [] : [
    "  Check first (mandatory):",
    ...x.preconditions.map((c, i) => `    ${i + 1}. ${quote(c)}`)
  ]),
  "  Steps:",
  ...x.steps.map((s, i) => `    ${i + 1}. ${quote(s)}`),
  ...x.earlier.map((e) => `  Earlier v${e.version} ${p.id(e.id)}: ${countsLine(e.runs)}`)
]

const runLine = (r: Run, p: Page): string =>
  `${p.id(r.id)} ${r.outcome}${r.failed_step === null ? "" : ` at step ${r.failed_step}`} by ${r.ran_by} ${
    p.when(r.created_at)
  }${r.task_id === null ? "" : ` (task ${p.id(r.task_id)})`}${r.note === null ? "" : `: ${quote(r.note)}`}`

export const renderRecordRun: Render<typeof RecordRunOutput.Type> = (o, p) => [
  `${o.already_recorded ? "Already recorded" : "Recorded"}: ${runLine(o.run, p)}`,
  `Procedure ${p.id(o.run.procedure_id)}: ${countsLine(o.runs)}`,
  ...(o.revision === undefined ? [] : ["Revised into:", ...procedureLines(o.revision, p)])
]

export const renderFindProcedure: Render<typeof FindProcedureOutput.Type> = (o, p) => [
  ...(o.note === undefined ? [] : [o.note]),
  ...(o.procedures.length === 0 && o.note === undefined ? ["Procedures: none match"] : []),
  ...o.procedures.flatMap((x, i) => [
    ...(o.procedures.length > 1 ? [`#${i + 1}`] : []),
    ...procedureLines(x, p)
  ]),
  ...(o.runs === undefined ? [] : list("Runs, newest first", o.runs, (r) => runLine(r, p), "none", true)),
  ...more(o, "relay_find_procedure")
]

/** The briefing's procedures section (issue 44): warnings first, then failed runs with their notes. */
export const procedureBriefingLines = (
  o: {
    readonly procedures?:
      | { readonly warnings: ReadonlyArray<Fact>; readonly failed_runs: ReadonlyArray<Run> }
      | undefined
  },
  p: Page
): Array<string> =>
  o.procedures === undefined ? [] : [
    ...list("New warnings (what not to do)", o.procedures.warnings, (f) => p.fact(f), null),
    ...list("Failed procedure runs (read before running it)", o.procedures.failed_runs, (r) =>
      `procedure ${p.id(r.procedure_id)}: ${runLine(r, p)}`, null)
  ]
