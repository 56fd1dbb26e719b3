import { describe, expect, it } from "@effect/vitest"
import { components, pageRank } from "../../src/domain/graphRank.js"

/** Importance and clusters as Relay computes them outside the database (domain/graphRank.ts). */
describe("graphRank", () => {
  it("rank gathers on what later work rests on: the root of a chain, then each fact by how much builds on it", () => {
    // 0 <- 1 <- 2 <- 3, and 4, 5 under 0: a chain and a fan under one root.
    const parent = Int32Array.from([-1, 0, 1, 2, 0, 0])
    const r = pageRank(parent)
    expect(r[0]).toBeGreaterThan(r[1]!)
    expect(r[1]).toBeGreaterThan(r[2]!)
    expect(r[2]).toBeGreaterThan(r[3]!)
    expect(r[4]).toBeCloseTo(r[5]!, 12)
    expect(r[3]).toBeCloseTo(r[4]!, 12)
    expect(pageRank(new Int32Array(0))).toHaveLength(0)
  })

  it("components join BUILDS_ON trees and SUPERSEDES pairs, direction ignored", () => {
    const parent = Int32Array.from([-1, 0, -1, 2, -1])
    const apart = components(parent, [])
    expect(apart[0]).toBe(apart[1])
    expect(apart[2]).toBe(apart[3])
    expect(new Set(apart).size).toBe(3)
    const joined = components(parent, [[3, 1]])
    expect(new Set(joined).size).toBe(2)
    expect(joined[0]).toBe(joined[3])
    expect(joined[4]).not.toBe(joined[0])
  })

  it("a 1,000,000-deep chain: no recursion, every fact in one component, rank falling from the root", () => {
    const n = 1_000_000
    const parent = Int32Array.from({ length: n }, (_, i) => i - 1)
    const rep = components(parent, [])
    expect(rep.every((x) => x === rep[0])).toBe(true)
    const r = pageRank(parent)
    expect(r[0]).toBeGreaterThan(r[n - 1]!)
  })
})
