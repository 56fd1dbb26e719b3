import { createHash } from "node:crypto"

/**
 * A fact's normalised content as a short fixed key, stored on the fact (`f.hash`) by every save and
 * bulk save: duplicates and forks group siblings by it instead of comparing their texts pairwise.
 * 64 bits of SHA-256: two differing texts share a key with probability 2^-64 a pair.
 */
export const contentKey = (norm: string): string => createHash("sha256").update(norm).digest("hex").slice(0, 16)
