import type { BriefingOutput } from "../../domain/outputs.js"
import { list, quote, type Render } from "./page.js"
import { conflict, decision, withdrawal } from "./parts.js"

export const renderBriefing: Render<typeof BriefingOutput.Type> = (o, p) => {
  // Conflicts that gained no child in this window were in an earlier briefing: counted, not repeated.
  const since = Date.parse(o.since)
  const fresh = o.open_conflicts.filter((c) => c.children.some((f) => Date.parse(f.created_at) > since))
  const older = o.open_conflicts.length - fresh.length
  return [
    // as_of whole: a reader keeping its own place passes it back as `since` (the text may be all it sees).
    `Briefing since ${p.when(o.since)}, as of ${o.as_of}.`,
    ...(o.new_facts.length + o.decisions.length + o.retractions.length + fresh.length === 0
      ? ["Nothing new from others."]
      : []),
    ...list("New facts by others", o.new_facts, (f) => p.fact(f), null),
    ...list("Decisions by others", o.decisions, decision(p), null),
    ...list("Retracted by others", o.retractions, withdrawal(p), null),
    ...list("Open conflicts with new facts", fresh, conflict(p), null),
    ...(older === 0 ? [] : [`${older} older open conflict(s) unchanged: relay_detect_conflicts lists them.`]),
    ...(o.next_cursor === null
      ? []
      : [`More in this window: call again with cursor ${quote(o.next_cursor)} (lists above may go on).`])
  ]
}
