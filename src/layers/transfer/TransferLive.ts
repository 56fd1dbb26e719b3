import { Effect, Layer, Stream } from "effect"
import { GraphDatabase } from "../../services/GraphDatabase.js"
import { SecretScanner } from "../../services/SecretScanner.js"
import { Transfer } from "../../services/Transfer.js"
import { exportLines, importText } from "./transferText.js"

/** Transfer on the stack's graph and secret scanner (transferText.ts). */
export const TransferLive = Layer.effect(
  Transfer,
  Effect.gen(function*() {
    const db = yield* GraphDatabase
    const scanner = yield* SecretScanner
    const onGraph = <A, E>(effect: Effect.Effect<A, E, GraphDatabase | SecretScanner>) =>
      effect.pipe(Effect.provideService(GraphDatabase, db), Effect.provideService(SecretScanner, scanner))
    return {
      exportLines: Stream.unwrap(onGraph(exportLines)),
      importText: (text, options) => onGraph(importText(text, options))
    }
  })
)
