import { Config, Effect } from "effect"
import { defaultStampAhead } from "../domain/stampWindow.js"
import { CliFailure } from "./common.js"

/**
 * RELAY_STAMP_AHEAD_SECONDS: how far past now a stamp may be (domain/stampWindow.ts; default 300).
 * The operator widens it to import a file from a machine whose clock ran ahead; `import` refuses a
 * stamp past it and `check-db --verify` names those an older Relay let in.
 */
export const stampAhead = Config.integer("RELAY_STAMP_AHEAD_SECONDS").pipe(
  Config.validate({ message: "must be 0 or more", validation: (n) => n >= 0 }),
  Config.map((s) => s * 1000),
  Config.withDefault(defaultStampAhead),
  Effect.mapError(() =>
    new CliFailure({ message: "RELAY_STAMP_AHEAD_SECONDS must be a whole number of seconds, 0 or more", exitCode: 2 })
  )
)
