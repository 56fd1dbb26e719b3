/**
 * The demo story, shared by `npm run demo` (which plays it through dist/server.js over stdio) and
 * `npm run seed` (which loads it into the configured graph through the same tool path).
 *
 * Two assistants share one memory. Claude Desktop and Cursor both build on one auth decision and
 * disagree on where refresh tokens live (a fork); Claude Desktop builds two more facts on its
 * answer; a second thread is about database migrations, where two details under one fact differ
 * without contradicting each other. The fork is settled for Redis, which makes Claude Desktop's
 * cookie branch stale; the two migration details are recorded as compatible, so both stand. Facts
 * that only add to their parent are saved as details, the two answers for refresh tokens as choices,
 * and at the end a detail is revised in one call.
 */

export type Assistant = "claude-desktop" | "cursor"

export interface StoryFact {
  /** A name for the fact inside the story; the real id is made by Relay. */
  readonly key: string
  readonly content: string
  readonly writtenBy: Assistant
  readonly sessionId: string
  /** The key of the fact it builds on, saved earlier in the list. */
  readonly parent: string | null
  /** What it says of its parent: adds to it (detail) or one option of several (choice). */
  readonly kind?: "detail" | "choice"
}

export interface StoryResolution {
  readonly winner: string
  readonly loser: string
  readonly reason: string
  readonly resolvedBy: Assistant
}

const claudeAuth = "claude-desktop:auth-design"
const cursorAuth = "cursor:auth-review"
const cursorDb = "cursor:db-migrations"
const claudeDb = "claude-desktop:db-migrations"

/** In the order they are saved; a parent always comes before its children. */
export const storyFacts: ReadonlyArray<StoryFact> = [
  {
    key: "auth",
    content: "Auth uses short-lived access tokens with refresh tokens",
    writtenBy: "claude-desktop",
    sessionId: claudeAuth,
    parent: null
  },
  {
    key: "cookies",
    kind: "choice",
    content: "Store refresh tokens in httpOnly cookies",
    writtenBy: "claude-desktop",
    sessionId: claudeAuth,
    parent: "auth"
  },
  {
    key: "csrf",
    kind: "detail",
    content: "Guard the refresh endpoint with SameSite=Strict and a CSRF token",
    writtenBy: "claude-desktop",
    sessionId: claudeAuth,
    parent: "cookies"
  },
  {
    key: "rotation",
    kind: "detail",
    content: "Rotate the refresh cookie on every use",
    writtenBy: "claude-desktop",
    sessionId: claudeAuth,
    parent: "csrf"
  },
  {
    key: "redis",
    kind: "choice",
    content: "Store refresh tokens in Redis",
    writtenBy: "cursor",
    sessionId: cursorAuth,
    parent: "auth"
  },
  {
    key: "redis-ttl",
    kind: "detail",
    content: "Key refresh tokens in Redis by user id with a 30-day TTL",
    writtenBy: "cursor",
    sessionId: cursorAuth,
    parent: "redis"
  },
  {
    key: "migrations",
    content: "Database migrations run in CI before each deploy",
    writtenBy: "cursor",
    sessionId: cursorDb,
    parent: null
  },
  {
    key: "sql-files",
    content: "Each migration is one SQL file with a tested down step",
    writtenBy: "claude-desktop",
    sessionId: claudeDb,
    parent: "migrations"
  },
  {
    key: "concurrent-index",
    kind: "detail",
    content: "Build indexes CONCURRENTLY so no migration locks a table",
    writtenBy: "cursor",
    sessionId: cursorDb,
    parent: "sql-files"
  },
  {
    key: "reviews",
    content: "A second engineer reviews every migration before it merges",
    writtenBy: "cursor",
    sessionId: cursorDb,
    parent: "migrations"
  }
]

/** The contested fork of the story: the two facts under "auth", settled by a decision. */
export const storyFork = { parent: "auth", a: "cookies", b: "redis" } as const

/** The other fork: two details under "migrations" that add up, recorded as compatible. */
export const storyCompatible = {
  parent: "migrations",
  facts: ["sql-files", "reviews"],
  reason: "Both stand: one is how a migration is written, the other how it is reviewed",
  resolvedBy: "cursor"
} as const

export const storyResolution: StoryResolution = {
  winner: "redis",
  loser: "cookies",
  reason: "Redis wins because we need instant revocation",
  resolvedBy: "claude-desktop"
}

/** The facts that build on the loser, nearest first: stale once the fork is settled. */
export const storyStale: ReadonlyArray<{ readonly key: string; readonly distance: number }> = [
  { key: "csrf", distance: 1 },
  { key: "rotation", distance: 2 }
]

/** Who reads the briefing, and who they should learn from. */
export const storyBriefing = { reader: "cursor", learnsFrom: "claude-desktop" } as const

/** The threads (clusters) of the story, largest first, by the key of their root. */
export const storyThreads: ReadonlyArray<{ readonly root: string; readonly size: number }> = [
  { root: "auth", size: 6 },
  { root: "migrations", size: 4 }
]

/** The arguments of relay_save_fact for a story fact, given the ids of the facts saved before it. */
export const saveArguments = (fact: StoryFact, ids: ReadonlyMap<string, string>): Record<string, string> => {
  const parent = fact.parent === null ? undefined : ids.get(fact.parent)
  return {
    content: fact.content,
    written_by: fact.writtenBy,
    session_id: fact.sessionId,
    ...(parent === undefined ? {} : { parent_fact_id: parent }),
    ...(fact.kind === undefined ? {} : { kind: fact.kind })
  }
}

/**
 * The demo's last move: claude-desktop changes the Redis TTL in one call (a save that supersedes the
 * old fact, beside it under the same parent).
 */
export const storyRevision = {
  revises: "redis-ttl",
  content: "Key refresh tokens in Redis by user id with a 14-day TTL",
  reason: "Security review: 30 days outlives a stolen laptop",
  writtenBy: "claude-desktop",
  sessionId: claudeAuth
} as const

/** The arguments of relay_save_fact for the story's revision. */
export const revisionArguments = (ids: ReadonlyMap<string, string>): Record<string, string> => ({
  content: storyRevision.content,
  written_by: storyRevision.writtenBy,
  session_id: storyRevision.sessionId,
  kind: "detail",
  supersedes: ids.get(storyRevision.revises) ?? "",
  reason: storyRevision.reason
})

/** The arguments of relay_resolve_conflict for the story's resolution. */
export const resolveArguments = (ids: ReadonlyMap<string, string>): Record<string, string> => ({
  winner_fact_id: ids.get(storyResolution.winner) ?? "",
  loser_fact_id: ids.get(storyResolution.loser) ?? "",
  reason: storyResolution.reason,
  resolved_by: storyResolution.resolvedBy
})

/** The arguments of relay_resolve_conflict that record the story's compatible pair. */
export const compatibleArguments = (ids: ReadonlyMap<string, string>): Record<string, unknown> => ({
  outcome: "compatible",
  fact_ids: storyCompatible.facts.map((key) => ids.get(key) ?? ""),
  reason: storyCompatible.reason,
  resolved_by: storyCompatible.resolvedBy
})

/**
 * After the decision: the CSRF guard on the refresh endpoint holds whatever stores the token, so
 * claude-desktop confirms it; it and the rotation built on it read as current again.
 */
export const storyConfirmation = {
  fact: "csrf",
  reason: "The refresh endpoint still reads a cookie, wherever the token lives",
  confirmedBy: "claude-desktop",
  refreshed: ["rotation"]
} as const
