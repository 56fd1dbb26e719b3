import { Effect, Schema } from "effect"
import { RunFromRow } from "../../domain/procedures.js"
import type { GraphDatabase } from "../../services/GraphDatabase.js"
import { FactFromRow, factMap } from "../factStore/projection.js"
import { runMap } from "./runs.js"

/**
 * The briefing's procedures section (issue 44): warnings others saved and failed runs others
 * recorded in the window, newest first, each list through its created_at index and stopped at its
 * limit. Runs are stamped by the process's clock (as tasks are), not fenced like facts.
 */
const warningsQuery = `MATCH (w:Fact) WHERE w.created_at > $since AND w.created_at <= $asOf ` +
  `AND w.kind = 'warning' AND w.written_by <> $name WITH w ORDER BY w.created_at DESC LIMIT $limit ` +
  `RETURN ${factMap("w")} AS fact`
const failedQuery = `MATCH (r:Run) WHERE r.created_at > $since AND r.created_at <= $asOf ` +
  `AND r.outcome = 'failure' AND r.ran_by <> $name WITH r ORDER BY r.created_at DESC LIMIT $limit ` +
  `RETURN ${runMap("r")} AS run`

export const procedureBriefing = Effect.fn("relay/procedures/briefing")(
  function*(db: GraphDatabase["Type"], r: { name: string; since: number; asOf: number; limit: number }) {
    const warnings = yield* db.read(warningsQuery, r, Schema.Struct({ fact: FactFromRow }))
    const failed = yield* db.read(failedQuery, r, Schema.Struct({ run: RunFromRow }))
    return { warnings: warnings.map((w) => w.fact), failedRuns: failed.map((f) => f.run) }
  }
)
