import { Effect } from "effect"
import { SecretDetected } from "../domain/errors.js"
import { findSecretKind } from "../domain/secretRules.js"

/**
 * Refuses text that looks like a credential (the rule table of src/domain/secretRules.ts), naming
 * the kind of secret and never the text. Depends on nothing.
 */
export class SecretScanner extends Effect.Service<SecretScanner>()("relay/SecretScanner", {
  succeed: {
    check: (field: string, text: string): Effect.Effect<void, SecretDetected> => {
      const kind = findSecretKind(text)
      return kind === undefined ? Effect.void : Effect.fail(
        new SecretDetected({
          message: `${field} looks like it contains a credential (${kind}); nothing was saved. ` +
            "Save a pointer to where the secret lives instead."
        })
      )
    }
  }
}) {}
