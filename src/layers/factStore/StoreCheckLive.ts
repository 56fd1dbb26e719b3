import { Effect, Layer } from "effect"
import { GraphDatabase } from "../../services/GraphDatabase.js"
import { StoreCheck } from "../../services/StoreCheck.js"
import { verifyStored } from "./verifyStored.js"

/** check-db --verify on the stack's graph (verifyStored.ts). */
export const StoreCheckLive = Layer.effect(
  StoreCheck,
  Effect.map(GraphDatabase, (db) => ({ verify: (shown, ahead) => verifyStored(db, shown, ahead) }))
)
