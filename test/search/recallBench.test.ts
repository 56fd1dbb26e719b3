import { describe, expect, it } from "vitest"
import { bm25, foundAt, parseLocomo } from "../../bench/recall.js"

/**
 * bench/recall.ts reads LoCoMo's own file shape and scores a question as found when an evidence turn
 * is in the first k; the BM25 it compares with is a plain one. Held here on a file in that shape,
 * since the data set itself is not shipped.
 */
const sample = [{
  sample_id: "conv-1",
  conversation: {
    speaker_a: "Ann",
    speaker_b: "Bo",
    session_10_date_time: "9:00 am on 1 July, 2023",
    session_10: [{ speaker: "Bo", dia_id: "D10:1", text: "The pottery class made me a bowl." }],
    session_2_date_time: "1:14 pm on 25 May, 2023",
    session_2: [{ speaker: "Ann", dia_id: "D2:1", text: "I adopted a dog named Oscar." }],
    session_1_date_time: "1:56 pm on 8 May, 2023",
    session_1: [
      { speaker: "Ann", dia_id: "D1:1", text: "I went to a support group yesterday." },
      { speaker: "Bo", dia_id: "D1:2", text: "I painted a sunrise." }
    ]
  },
  qa: [
    { question: "What is Ann's dog called?", answer: "Oscar", evidence: ["D2:1"], category: 1 },
    { question: "What is Bo's cat called?", adversarial_answer: "Oscar", evidence: ["D2:1"], category: 5 }
  ]
}]

describe("bench:recall's reading of LoCoMo", () => {
  it("orders sessions by number (10 after 2), keeps each turn's id and speaker, and every question's category", () => {
    const [c] = parseLocomo(sample)
    expect(c!.id).toBe("conv-1")
    expect(c!.sessions.map((s) => s.date)).toEqual([
      "1:56 pm on 8 May, 2023",
      "1:14 pm on 25 May, 2023",
      "9:00 am on 1 July, 2023"
    ])
    expect(c!.sessions[0]!.turns).toEqual([
      { dia_id: "D1:1", speaker: "Ann", text: "I went to a support group yesterday." },
      { dia_id: "D1:2", speaker: "Bo", text: "I painted a sunrise." }
    ])
    expect(c!.questions.map((q) => [q.category, q.evidence])).toEqual([[1, ["D2:1"]], [5, ["D2:1"]]])
  })

  it("reads a sample of the repository's zip, its sessions beside qa, as its own conversation", () => {
    const { conversation, ...rest } = sample[0]!
    const [c] = parseLocomo([{ ...rest, ...conversation, session_1_summary: "Ann and Bo talked." }])
    expect(c!.sessions.map((s) => s.turns.map((t) => t.dia_id))).toEqual([["D1:1", "D1:2"], ["D2:1"], ["D10:1"]])
    expect(c!.questions).toHaveLength(2)
  })

  it("ranks by BM25: rarer shared words first, no shared word no rank", () => {
    const rank = bm25(["the dog barked", "the cat sat", "the dog and the cat", "nothing here"])
    expect(rank("cat", 10)).toEqual([1, 2])
    expect(rank("dog barked", 10)[0]).toBe(0)
    expect(rank("zebra", 10)).toEqual([])
    expect(rank("the", 2)).toHaveLength(2)
  })

  it("finds a question at k only when an evidence turn is in the first k", () => {
    expect(foundAt(["D1:1", "D2:1"], ["D2:1"], 2)).toBe(true)
    expect(foundAt(["D1:1", "D2:1"], ["D2:1"], 1)).toBe(false)
    expect(foundAt([], ["D2:1"], 10)).toBe(false)
  })
})
