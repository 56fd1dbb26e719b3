import { describe, expect, it } from "@effect/vitest"
import { chooseClusters } from "../../src/domain/clusters.js"

const cluster = (size: number, first: number) => ({ size, first, known: size })

describe("which clusters one answer carries", () => {
  it("everything, largest first and ties to the older, when it fits the budget", () => {
    const all = [cluster(1, 30), cluster(3, 20), cluster(3, 10), cluster(2, 40)]
    const chosen = chooseClusters(all, { budget: 100 })
    expect(chosen.map((c) => c.first)).toEqual([10, 20, 40, 30])
    expect(chosen.map((c) => c.take)).toEqual([3, 3, 2, 1])
  })

  it("stops at the budget, cutting the last cluster to what is left, sizes kept whole", () => {
    const chosen = chooseClusters([cluster(5, 1), cluster(4, 2), cluster(3, 3)], { budget: 7 })
    expect(chosen.map((c) => [c.size, c.take])).toEqual([[5, 5], [4, 2]])
  })

  it("honours limit, facts per cluster and the ids at hand", () => {
    const chosen = chooseClusters([cluster(5, 1), cluster(4, 2), cluster(3, 3)], {
      budget: 100,
      limit: 2,
      perCluster: 2
    })
    expect(chosen.map((c) => [c.first, c.take])).toEqual([[1, 2], [2, 2]])
    const capped = chooseClusters([{ size: 5, first: 1, known: 3 }], { budget: 100 })
    expect(capped.map((c) => [c.size, c.take])).toEqual([[5, 3]])
    // More facts per cluster asked for than a cluster has: all of it, never more ids than it holds.
    const small = chooseClusters([cluster(3, 1), cluster(2, 2)], { budget: 100, perCluster: 5 })
    expect(small.map((c) => [c.size, c.take])).toEqual([[3, 3], [2, 2]])
  })
})
