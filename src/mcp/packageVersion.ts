import { readFileSync } from "node:fs"
import { join } from "node:path"
import { packageDir } from "../packageDir.js"

/**
 * The version in package.json, so the one a client sees in `initialize` is the one npm installed.
 * Plain JSON, no Schema: the stdio front (discoverFront.ts) reads it before effect is loaded.
 */
export const packageVersion: string = (() => {
  const version: unknown = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version
  if (typeof version !== "string") throw new Error("package.json has no version")
  return version
})()
