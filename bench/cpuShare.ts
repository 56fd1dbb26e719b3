import type { FalkorDB } from "falkordb"
import { readFileSync } from "node:fs"

/**
 * Where a throughput run's CPU goes, for benchmarks on a shared machine: the Relay processes', the
 * database server's and the bench client's own CPU time, and how many write statements the database
 * ran (a save a statement means group commit found nothing to batch).
 */

/** CPU time (user + system, every thread) a process has used, from /proc: NaN where there is none. */
export const processCpuMs = (pid: number | undefined): number => {
  if (pid === undefined) return NaN
  try {
    // Fields after "(comm) ": state is 0, utime 11, stime 12, in clock ticks (100 a second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return NaN
  }
}

const info = async (client: FalkorDB, section: string) => {
  const conn = await client.connection
  return String(
    await (conn as unknown as { sendCommand: (args: Array<string>) => Promise<unknown> }).sendCommand([
      "INFO",
      section
    ])
  )
}

/** The database server's CPU time (its process, FalkorDB's threads included) and its GRAPH.QUERY count so far. */
export const databaseCounters = async (client: FalkorDB) => {
  const cpu = await info(client, "cpu")
  const stats = await info(client, "commandstats")
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(cpu)?.[1] ?? NaN)
  return {
    cpuMs: (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1000,
    writes: Number(/cmdstat_graph\.query:calls=(\d+)/i.exec(stats)?.[1] ?? NaN),
    reads: Number(/cmdstat_graph\.ro_query:calls=(\d+)/i.exec(stats)?.[1] ?? 0)
  }
}

/** This process's own CPU time. */
export const ownCpuMs = () => {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}
