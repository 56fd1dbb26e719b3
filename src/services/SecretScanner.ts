import { Context, type Effect } from "effect"
import type { SecretDetected } from "../domain/errors.js"

/** Refuses text that looks like a credential, naming the kind of secret and never the text. */
export class SecretScanner extends Context.Tag("relay/SecretScanner")<SecretScanner, {
  readonly check: (field: string, text: string) => Effect.Effect<void, SecretDetected>
}>() {}
