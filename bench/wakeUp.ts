import { Effect } from "effect"
import { summarise } from "./sampler.js"

/**
 * What a process pays on this machine to run a little work right after it slept: the time to
 * start an Effect fiber and run one step, hot and after an 8 ms idle wait (a search's time in the
 * database). On the 2-core VMs here: ~10 us hot, 30-150 us after the wait (it varies with the VM's
 * minute), with no database involved. Every step of Relay's own path after a slow query costs
 * several times what a hot loop shows, which is why the in-process overhead of a search is ms.
 */
export const wakeUpCost = async (idleMs = 8, samples = 100) => {
  const fiberStart = async () => {
    let started = 0
    const t0 = performance.now()
    await Effect.runPromise(Effect.sync(() => {
      started = performance.now()
    }))
    return started - t0
  }
  const hot: Array<number> = []
  const woken: Array<number> = []
  for (let i = -10; i < samples; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    const h = await fiberStart()
    await new Promise((resolve) => setTimeout(resolve, idleMs))
    const w = await fiberStart()
    if (i >= 0) {
      hot.push(h)
      woken.push(w)
    }
  }
  return { hotUs: summarise(hot).p50 * 1000, wokenUs: summarise(woken).p50 * 1000, idleMs }
}
