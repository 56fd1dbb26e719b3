import { Effect } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { filterStatuses } from "../domain/fact.js"
import { SearchInput } from "../domain/inputs.js"
import { SearchOutput } from "../domain/outputs.js"
import { currentBudget, type CursorKey, page } from "../domain/paging.js"
import { FactStore, type SearchKey } from "../services/FactStore.js"
import { renderSearch } from "./render/reads.js"
import { defineTool, readOnly } from "./Tool.js"

const badCursor = new InvalidInput({ message: "cursor: must be a next_cursor returned by this tool" })

/**
 * The engine's scores are 0 or between these (20 at most on the 100k bench graph; a query has at
 * most 16 terms). Outside them is no cursor Relay made, and FalkorDB refuses the extremes as query
 * parameters (a bound past the largest double is Infinity, a subnormal one a float overflow).
 */
const scoreRange = [1e-300, 1e9] as const

/** A search cursor is [score, node id] (then 1 among any-word matches): a score the engine or BM25 can give and a whole number. */
const searchKey = (key: CursorKey | undefined): Effect.Effect<SearchKey | null, InvalidInput> => {
  if (key === undefined) return Effect.succeed(null)
  const [score, i, tier] = key
  const valid = (key.length === 2 || (key.length === 3 && tier === 1)) && typeof score === "number" &&
    (score === 0 || (score >= scoreRange[0] && score <= scoreRange[1])) && Number.isSafeInteger(i)
  if (!valid) return Effect.fail(badCursor)
  return Effect.succeed(key.length === 3 ? [score, i as number, 1] as const : [score, i as number] as const)
}

export const search = defineTool({
  name: "relay_search",
  description: "Words or a question; best first, with decisions won or lost",
  annotations: readOnly("Search the memory"),
  // Accepted, not advertised: a session filter is for scripts more than for a model (tokens).
  unlisted: ["session_id"],
  input: SearchInput,
  output: SearchOutput,
  render: renderSearch,
  handler: Effect.fn("relay/tools/relay_search")(function*(input) {
    const after = yield* searchKey(input.cursor)
    const rows = yield* (yield* FactStore).search({
      query: input.query,
      statuses: filterStatuses(input.status),
      writtenBy: input.written_by ?? null,
      sessionId: input.session_id ?? null,
      since: input.since ?? null,
      until: input.until ?? null,
      asOf: input.as_of ?? null,
      thread: input.thread ?? null,
      take: input.limit + 1,
      after
    })
    const { items, next_cursor } = page(rows, input.limit, (r) => r.key, yield* currentBudget())
    return { hits: items.map((r) => r.hit), next_cursor }
  })
})
