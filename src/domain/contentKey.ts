import { createHash } from "node:crypto"
import { normaliseContent } from "./content.js"

/**
 * A fact's normalised content as a short fixed key, stored on the fact (`f.hash`) by every save and
 * bulk save: duplicates and forks group siblings by it instead of comparing their texts pairwise.
 * 64 bits of SHA-256: two differing texts share a key with probability 2^-64 a pair.
 */
export const contentKey = (norm: string): string => createHash("sha256").update(norm).digest("hex").slice(0, 16)

/** What every write stores of a text: the text as given, its normalised form and that form's key. */
export const storedText = (content: string) => {
  const norm = normaliseContent(content)
  return { content, norm, hash: contentKey(norm) }
}
