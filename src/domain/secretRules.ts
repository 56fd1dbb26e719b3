/**
 * Secret scanner: a pure, ordered table of named rules.
 *
 * `findSecretKind` runs before any write on `content` and `reason`. It answers only the
 * human-readable kind of the first rule that matches; it never returns, logs or keeps the
 * matched text, so the caller can put the kind into an error message safely.
 *
 * Shapes follow the public gitleaks rule set where a provider has a fixed prefix, and fall
 * back to a few context rules (AWS secret key, bearer / basic auth, generic assignments,
 * credentials in URLs) that need a "does this value look like a real secret" check.
 *
 * Invisible characters: one zero-width space, soft hyphen or word joiner inside a token hides it
 * from every regex here, and the text still pastes and works as the secret. So `findSecretKind`
 * scans folded copies of the text (`scanCopy`), never the text as given. The copies are only
 * scanned; what is stored is the original.
 *
 * Performance: inputs are at most 2000 characters. Every regex here is a flat sequence of
 * bounded or single character-class quantifiers (no nested quantifiers, no alternation
 * inside a repeated group), so matching stays linear in the input length.
 */

import { hidesTokenEnds, scanCopy } from "./secrets/fold.js"
import { secretRules } from "./secrets/ruleTable.js"

export { looksLikeCommandPassword } from "./secrets/contextRules.js"
export { invisibleCharacters, scanCopy } from "./secrets/fold.js"
export { type SecretRule, secretRules } from "./secrets/ruleTable.js"
export { looksLikePlaceholder, looksLikeSecretValue, shannonEntropy } from "./secrets/valueShape.js"

/**
 * The kind of the first rule that matches `text`, or undefined. Only the kind is returned:
 * never the matched text, so it can go into an error message or a log line.
 */
export const findSecretKind = (text: string): string | undefined => {
  const kindIn = (copy: string) => secretRules.find((rule) => rule.test(copy))?.kind
  // Plain ASCII is its own copy: nothing invisible, no odd spaces, nothing for NFKC to fold.
  if (/^[\x20-\x7e\t\n\r\v\f]*$/.test(text)) return kindIn(text)
  const removed = kindIn(scanCopy(text))
  if (removed !== undefined || !hidesTokenEnds(text)) return removed
  return kindIn(scanCopy(text, " "))
}
