import { Effect, Layer } from "effect"
import { SecretDetected } from "../domain/errors.js"
import { findSecretKind } from "../domain/secretRules.js"
import { SecretScanner } from "../services/SecretScanner.js"

/** The rule table of src/domain/secretRules.ts; the error names the kind, never the text. */
export const SecretScannerLive = Layer.succeed(
  SecretScanner,
  SecretScanner.of({
    check: (field, text) => {
      const kind = findSecretKind(text)
      return kind === undefined ? Effect.void : Effect.fail(
        new SecretDetected({
          message: `${field} looks like it contains a credential (${kind}); nothing was saved. ` +
            "Save a pointer to where the secret lives instead."
        })
      )
    }
  })
)
