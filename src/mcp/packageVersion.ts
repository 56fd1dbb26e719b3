import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { packageDir } from "../packageDir.js"

/** The version in package.json, so the one a client sees in `initialize` is the one npm installed. */
export const packageVersion: string =
  Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ version: Schema.String })))(
    readFileSync(join(packageDir, "package.json"), "utf8")
  ).version
