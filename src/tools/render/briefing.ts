import type { BriefingOutput } from "../../domain/outputs.js"
import { list, quote, type Render } from "./page.js"
import { conflict, decision, withdrawal } from "./parts.js"
import { procedureBriefingLines } from "./procedures.js"
import { taskLine } from "./tasks.js"

export const renderBriefing: Render<typeof BriefingOutput.Type> = (o, p) => {
  // Conflicts that gained no child in this window were in an earlier briefing: counted, not repeated.
  const fresh = o.open_conflicts
  const older = o.unchanged_conflicts
  const paged = o.next_cursor !== null
  return [
    // as_of whole: a reader keeping its own place passes it back as `since` (the text may be all it sees).
    `Briefing since ${p.when(o.since)}, as of ${o.as_of}.`,
    ...(o.new_facts.length + o.decisions.length + o.retractions.length + fresh.length === 0
      ? ["Nothing new from others."]
      : []),
    ...list("Decisions by others", o.decisions, decision(p), null, paged),
    ...list("Retracted by others", o.retractions, withdrawal(p), null, paged),
    ...list("Open conflicts with new facts", fresh, conflict(p), null, paged),
    ...(o.imported ?? []).flatMap((i) => [
      `Imported by ${quote(i.by)} ${p.when(i.at)} (file sha256 ${i.file_sha256.slice(0, 12)}), stamped as in the file:`,
      ...list("Decisions it brought", i.decisions, decision(p), null),
      ...list("Retractions it brought", i.retractions, withdrawal(p), null),
      ...list(
        "Confirmations it brought",
        i.confirmations,
        (c) => `${p.fact(c.fact)} confirmed by ${c.confirmed_by} ${p.when(c.created_at)}: ${quote(c.reason)}`,
        null
      ),
      ...(i.more ? ["More records came with imports: relay_get_current_state with status lists what changed."] : [])
    ]),
    ...(older === 0 ? [] : [`${older} older open conflict(s) unchanged: relay_detect_conflicts lists them.`]),
    ...list("New tasks by others", o.tasks.new_tasks, (t) => taskLine(t, p), null),
    ...list("Tasks others hold", o.tasks.claimed_by_others, (t) => taskLine(t, p), null),
    ...list(
      "Failed attempts (read before retrying)",
      o.tasks.failures,
      (f) =>
        `${f.task.id} ${quote(f.task.title)} failed by ${f.failed_by} ${p.when(f.created_at)}: ${
          f.note === null ? "no note" : quote(f.note)
        }`,
      null
    ),
    ...list("Tasks awaiting a person's approval", o.tasks.awaiting_approval, (t) => taskLine(t, p), null),
    ...(o.tasks.more ? ["More tasks on the board: relay_list_tasks."] : []),
    ...procedureBriefingLines(o, p),
    // Last: what a budget cuts first (the store spends it on the lists above before these).
    ...list(
      "New facts by others",
      o.new_facts,
      (f) => p.seen(f.id) ? `${p.id(f.id)} ${f.written_by} ${p.when(f.created_at)} (text above)` : p.fact(f),
      null,
      paged
    ),
    ...(o.next_cursor === null
      ? []
      : [
        `More in this window: relay_get_briefing with the same my_name and cursor ${
          quote(o.next_cursor)
        } (lists above may go on).`
      ])
  ]
}
