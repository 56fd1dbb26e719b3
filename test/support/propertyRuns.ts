import { inject } from "vitest"

/**
 * How many runs a property against the real database makes in this suite: `npm test` makes a share
 * of them (vitest.config.ts), enough to find a rule broken everywhere, and stays quick; `npm run
 * test:slow` (vitest.slow.config.ts, which .ci/run runs too) makes them all, for the rare shapes.
 * `full` is the count the property was tuned to; never fewer than 5.
 */
export const propertyRuns = (full: number): number => Math.max(5, Math.ceil(full * inject("propertyShare")))
