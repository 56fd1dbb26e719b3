import { Effect } from "effect"
import { isConnectionError } from "./driverErrors.js"

/**
 * The falkordb client forwards socket errors to an emitter that has no listener until connect()
 * returns, so a socket that drops inside that window throws from an event handler. Such an error
 * is a failed connect (the call that started it answers `unavailable`), not a reason to stop
 * serving every other client: log it and go on. Anything else still ends the process.
 */
export const guardDriverErrors = Effect.sync(() => {
  process.on("uncaughtException", (error) => {
    if (isConnectionError(error)) {
      process.stderr.write(
        `relay: ignored a database connection error outside a call (${(error as Error).constructor.name})\n`
      )
      return
    }
    process.stderr.write(`relay: fatal: ${error instanceof Error ? error.constructor.name : typeof error}\n`)
    process.exit(1)
  })
})
