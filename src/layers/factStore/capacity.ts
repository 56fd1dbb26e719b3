import { Config } from "effect"

/**
 * What one graph may hold: RELAY_MAX_FACTS facts and RELAY_MAX_CONTENT_BYTES bytes of fact text
 * (UTF-8). Each team workspace is a graph of its own, so one team cannot fill the disk the others
 * share. The counts are kept on the RelayClock node by every write that adds facts (a save checks
 * and counts in its one statement), so checking costs no scan.
 */
export const graphCapacity = Config.all({
  facts: Config.integer("RELAY_MAX_FACTS").pipe(
    Config.withDefault(10_000_000),
    Config.validate({ message: "RELAY_MAX_FACTS must be a whole number of at least 1", validation: (n) => n >= 1 })
  ),
  bytes: Config.integer("RELAY_MAX_CONTENT_BYTES").pipe(
    Config.withDefault(4 * 1024 ** 3),
    Config.validate({
      message: "RELAY_MAX_CONTENT_BYTES must be a whole number of at least 2000",
      validation: (n) => n >= 2000
    })
  )
})

export interface GraphCapacity {
  readonly facts: number
  readonly bytes: number
}

/** The bytes a text counts for. */
export const textBytes = (content: string) => Buffer.byteLength(content, "utf8")
