import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The package's own folder (package.json, .env): the nearest folder above this module holding a
 * package.json. Walking up, not a fixed number of levels, because this module runs from src/ (tests),
 * from dist/ and from inside the bundled entry points (dist/server.js, dist/cli/*.js).
 */
export const packageDir: string = (() => {
  const start = dirname(fileURLToPath(import.meta.url))
  for (let dir = start;; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir
    if (dirname(dir) === dir) return start
  }
})()
