import { Schema } from "effect"
import type { StepsWrite } from "../../domain/procedures.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"

/**
 * A procedure's Step nodes (not facts: not searched, forked or counted as facts), its version and
 * lineage (the earlier versions' ids, newest first, at most `versionsShown`) and its counts at 0,
 * written once: a retry of the same save (its fact already there with steps) writes nothing again.
 * The fact itself is saved first by the FactStore's own statement (its rules, its revision).
 */
const stepsQuery = `MATCH (p:Fact {id: $id}) WHERE p.kind = 'procedure' ` +
  `WITH p, size([(p)-[:STEP]->(p_s:Step) | 1]) AS had ` +
  `FOREACH (_ IN CASE WHEN had = 0 THEN [1] ELSE [] END | ` +
  `SET p.version = $version, p.lineage = $lineage, p.runs_ok = 0, p.runs_failed = 0 ` +
  `FOREACH (s IN $steps | CREATE (p)-[:STEP {i: s[1]}]->(:Step {procedure_id: $id, part: s[0], i: s[1], text: s[2]}))) ` +
  `RETURN had`

const Row = Schema.Struct({ had: Schema.Number })

export const writeSteps = (db: GraphDatabase["Type"], w: StepsWrite) =>
  db.write(stepsQuery, {
    id: w.id,
    version: w.version,
    lineage: [...w.lineage],
    steps: [
      ...w.preconditions.map((t, i) => ["pre", i, t]),
      ...w.steps.map((t, i) => ["step", i, t])
    ]
  }, Row)
