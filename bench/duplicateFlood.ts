import { Effect } from "effect"
import { headerLine } from "../src/domain/memoryRecord.js"
import { toIso } from "../src/domain/time.js"
import { importText } from "../src/layers/transfer/transferText.js"
import { counterId } from "./memoryFile.js"

/**
 * Issue 40's hostile graph: one parent with 6,000 children saying the same thing and one that
 * differs, so its open conflicts are as costly to read as a workspace's can get. Written as an
 * import file: the bulk path's sibling checks grow with the siblings, past the statement timeout on
 * a loaded machine, where an import batch reads the stamps alone. Into the stack's own graph.
 */
export const importDuplicateFlood = Effect.suspend(() => {
  const fact = (n: number, content: string, parent: string | null) =>
    JSON.stringify({
      kind: "fact",
      id: counterId(n),
      created_at: toIso(Date.parse("2026-01-01T00:00:00.000Z") + n),
      written_by: "flooder",
      session_id: "dup",
      parent_id: parent,
      content
    })
  const lines = [
    headerLine,
    fact(1, "Which queue do we use?", null),
    ...Array.from({ length: 6000 }, (_, i) => fact(2 + i, "same text", counterId(1))),
    fact(6002, "a different answer", counterId(1))
  ]
  return importText(`${lines.join("\n")}\n`, { merge: false })
})
