import { describe, expect, it } from "@effect/vitest"
import { renderResult } from "../../src/mcp/render.js"
import { ShortIds } from "../../src/mcp/shortIds.js"
import { noTasks } from "../../src/tools/briefingTasks.js"
import { getBriefing } from "../../src/tools/getBriefing.js"
import { age } from "../../src/tools/render/page.js"

const fact = (id: string, parent: string | null, content: string, created_at = "2026-12-01T10:00:00.000Z") => ({
  id,
  content,
  written_by: "cursor",
  session_id: "s",
  created_at,
  parent_id: parent,
  status: "active" as const
})

describe("compact rendering", () => {
  it("short ids are 8 characters, longer only where two ids of the reply share them, never ending on a dash", () => {
    const a = "1beb22ab-3b72-4578-a9c6-e30813e17056"
    const b = "1beb22ab-3b99-4578-a9c6-e30813e17056"
    const c = "ffce2bcc-0000-4000-8000-000000000000"
    const ids = ShortIds.in({ x: [a, { y: b }], z: c })
    expect(ids.of(c)).toBe("ffce2bcc")
    expect(ids.of(a)).toBe("1beb22ab-3b7")
    expect(ids.of(b)).toBe("1beb22ab-3b9")
    const d = "1beb22ab-4b72-4578-a9c6-e30813e17056"
    expect(ShortIds.in([a, d]).of(a)).toBe("1beb22ab-3")
  })

  it("ages are short and relative to the reply's now", () => {
    const now = Date.parse("2026-12-01T13:00:00.000Z")
    expect(age("2026-12-01T12:59:30.000Z", now)).toBe("just now")
    expect(age("2026-12-01T12:15:00.000Z", now)).toBe("45m ago")
    expect(age("2026-11-30T10:00:00.000Z", now)).toBe("27h ago")
    expect(age("2026-11-20T13:00:00.000Z", now)).toBe("11d ago")
    expect(age("2026-08-01T13:00:00.000Z", now)).toBe("2026-08-01")
  })

  it("a briefing writes each fact once, refers to it by id after, and counts conflicts an earlier briefing showed", () => {
    const p = "aaaaaaaa-0000-4000-8000-000000000000"
    const w = "bbbbbbbb-0000-4000-8000-000000000000"
    const l = "cccccccc-0000-4000-8000-000000000000"
    const q = "dddddddd-0000-4000-8000-000000000000"
    const since = "2026-12-01T09:00:00.000Z"
    const text = renderResult(getBriefing, {
      as_of: "2026-12-01T13:00:00.000Z",
      since,
      new_facts: [fact(p, null, "parent text"), fact(w, p, "winner text")],
      decisions: [{
        winner: fact(w, p, "winner text"),
        loser: { ...fact(l, p, "loser text"), status: "superseded" },
        reason: "why",
        resolved_by: "cursor",
        created_at: "2026-12-01T12:00:00.000Z"
      }],
      retractions: [],
      open_conflicts: [
        {
          parent: fact(p, null, "parent text"),
          children: [fact(w, p, "winner text"), fact(q, p, "other text")],
          children_total: 2
        }
      ],
      unchanged_conflicts: 1,
      tasks: noTasks,
      next_cursor: null
    }, Date.parse("2026-12-01T13:00:00.000Z"))
    for (const t of ["parent text", "winner text", "loser text", "other text"]) {
      expect(text.split(`"${t}"`)).toHaveLength(2)
    }
    expect(text).toContain("1 older open conflict(s) unchanged: relay_detect_conflicts lists them.")
    // Decisions first (issue 41), both sides with their text the first time; the conflict and the new
    // facts after it name what was written above by id.
    expect(text).toContain(
      "bbbbbbbb \"winner text\" supersedes cccccccc \"loser text\" because \"why\" (cursor, 1h ago)"
    )
    expect(text).toContain(
      "under aaaaaaaa cursor 3h ago: \"parent text\" (2 open):\n  bbbbbbbb\n  dddddddd cursor 3h ago: \"other text\""
    )
    expect(text.indexOf("Decisions by others")).toBeLessThan(text.indexOf("New facts by others"))
    expect(text).toContain(
      "New facts by others (2):\naaaaaaaa cursor 3h ago (text above)\nbbbbbbbb cursor 3h ago (text above)"
    )
  })

  it("a fact whose text a decision cut is written whole where it is next listed, never left cut", () => {
    const w = "bbbbbbbb-0000-4000-8000-000000000000"
    const l = "cccccccc-0000-4000-8000-000000000000"
    const long = `The loser says a great deal more than eighty characters can hold: ${"x".repeat(40)} end`
    const text = renderResult(getBriefing, {
      as_of: "2026-12-01T13:00:00.000Z",
      since: "2026-12-01T09:00:00.000Z",
      new_facts: [fact(w, null, "winner text"), { ...fact(l, null, long), status: "superseded" }],
      decisions: [{
        winner: fact(w, null, "winner text"),
        loser: { ...fact(l, null, long), status: "superseded" },
        reason: "why",
        resolved_by: "cursor",
        created_at: "2026-12-01T12:00:00.000Z"
      }],
      retractions: [],
      open_conflicts: [],
      unchanged_conflicts: 0,
      tasks: noTasks,
      next_cursor: null
    }, Date.parse("2026-12-01T13:00:00.000Z"))
    expect(text).toContain(`cccccccc "${long.slice(0, 79)}…" because`)
    expect(text.split(`"${long}"`)).toHaveLength(2)
    expect(text).toContain(`cccccccc [superseded] cursor 3h ago: "${long}"`)
    expect(text).toContain("bbbbbbbb cursor 3h ago (text above)")
  })
})
