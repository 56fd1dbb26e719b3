import { mkdirSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** Raw numbers to bench/results/<YYYY-MM-DD>.json (a later run the same day replaces it). */
export const writeResults = (data: unknown): string => {
  const dir = fileURLToPath(new URL("./results/", import.meta.url))
  mkdirSync(dir, { recursive: true })
  const day = new Date().toISOString().slice(0, 10)
  const file = `${dir}${day}.json`
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`)
  return file
}
