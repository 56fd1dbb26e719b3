import { Clock, Effect } from "effect"
import { rng } from "../../bench/graph.js"
import { bulkSave } from "../../src/bulk/bulkSave.js"
import { openConflicts } from "../../src/domain/model/conflicts.js"
import type { GraphModel } from "../../src/domain/model/graph.js"
import { ok } from "./runTool.js"

/**
 * A memory as a team leaves it after a few days: five threads of 220 facts in all (80, 60, 40, 25
 * and 15), several writers, texts from a few words to a few lines, forks between two choices (some
 * settled by a decision, which leaves the loser's branch stale; some still open), and a retraction.
 * Everything else is a detail. A choice also forks with a detail beside it that shares two stemmed
 * terms with it (issue 41's rule), so a decision between the two choices leaves such a parent open:
 * `forks` says which parents read open and which settled, by the pure model's rule. Deterministic;
 * saved through the tools' own path over the last three days, so the studio shows ages from
 * minutes to days.
 */
export const threadSizes = [80, 60, 40, 25, 15] as const

const topics = [
  {
    root: "Auth uses short-lived access tokens (15 min) with rotating refresh tokens for every client",
    area: "auth",
    things: ["refresh tokens", "the session cookie", "the JWKS endpoint", "token revocation", "the login form"]
  },
  {
    root: "Database migrations run in CI before each deploy, one SQL file each with a tested down step",
    area: "migrations",
    things: ["the orders table", "index builds", "the down steps", "the migration lock", "backfills"]
  },
  {
    root: "Search ranks by BM25 over title and body, boosted by recency for the help centre",
    area: "search",
    things: ["the title boost", "stemming", "the synonyms file", "the reindex job", "typo tolerance"]
  },
  {
    root: "Billing webhooks are verified, stored, then processed once by a queue worker",
    area: "billing",
    things: ["the signature check", "retries", "the dead-letter queue", "idempotency keys"]
  },
  {
    root: "The web app builds with esbuild; one bundle per route, no CDN",
    area: "frontend",
    things: ["code splitting", "the CSS pipeline", "source maps", "the service worker"]
  }
]

const writers = ["claude-desktop", "cursor", "zed-agent", "codex-cli", "copilot-workspace-long-name"]
const details = [
  "Measured on staging: p95 stays under the budget with {thing} as it is now",
  "{Thing} needs a runbook entry; on-call must know how to roll it back without a deploy",
  "Keep {thing} behind a feature flag until the next release train",
  "Added a regression test for {thing} after the incident last week",
  "{Thing}: the old behaviour is kept for one more version so clients can move over",
  "Document {thing} in the onboarding guide",
  "Logs for {thing} must never include the token or the customer's e-mail address; the scanner in CI " +
  "checks the fixtures and fails the build when one slips in",
  "Alert when {thing} fails more than three times in ten minutes",
  "{Thing} is owned by the platform team from now on",
  "Benchmark {thing} again after the upgrade to Node 22",
  "{Thing} failed twice in the last deploy; the fix is in review",
  "The staging config for {thing} now matches production",
  "Ask security to review {thing} before it ships",
  "{Thing} reads its settings from the environment, never from a file in the repository",
  "Load-tested {thing} at twice last year's peak: no errors",
  "Dashboards for {thing} show error rate, p50 and p95",
  "Customer support has a macro that explains {thing}",
  "{Thing} is covered by the contract tests in CI"
]
const choices = [
  ["Use Redis for {thing}", "Use PostgreSQL for {thing}"],
  ["Run {thing} nightly", "Run {thing} on every merge"],
  ["Put {thing} in a shared library", "Keep {thing} in each service"],
  ["Expire {thing} after 30 days", "Expire {thing} after 7 days"]
]

export type Step =
  | {
    readonly op: "save"
    readonly key: string
    readonly thread: number
    readonly parent: string | null
    readonly content: string
    readonly writer: string
    readonly kind?: "detail" | "choice"
  }
  | { readonly op: "resolve"; readonly winner: string; readonly loser: string; readonly reason: string }
  | { readonly op: "retract"; readonly key: string; readonly reason: string }

const fill = (template: string, thing: string) =>
  template.replace("{thing}", thing).replace("{Thing}", thing[0]!.toUpperCase() + thing.slice(1))

/**
 * The forked parents' keys, as the studio marks them: open where the pure model (domain/model) finds
 * an open conflict once every step is taken, settled where a decision between two of a parent's
 * children left none open.
 */
const forkMarks = (steps: ReadonlyArray<Step>): Map<string, "open" | "settled"> => {
  const model: GraphModel = {
    facts: steps.flatMap((s, i) =>
      s.op === "save" ? [{ id: s.key, content: s.content, parentId: s.parent, createdAt: i, kind: s.kind ?? null }] : []
    ),
    supersedes: steps.flatMap((s) => s.op === "resolve" ? [{ winner: s.winner, loser: s.loser }] : []),
    retractions: steps.flatMap((s, i) => s.op === "retract" ? [{ fact: s.key, createdAt: i }] : [])
  }
  const parentOf = new Map(model.facts.map((f) => [f.id, f.parentId]))
  const marks = new Map<string, "open" | "settled">()
  for (const c of openConflicts(model)) marks.set(c.parent, "open")
  for (const d of model.supersedes) {
    const parent = parentOf.get(d.winner)!
    if (!marks.has(parent)) marks.set(parent, "settled")
  }
  return marks
}

/** The steps, in order; `forks` are the forked parents' keys, open or settled (forkMarks). */
export const studioMemory = (seed = 47) => {
  const rand = rng(seed)
  const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
  const steps: Array<Step> = []
  const forked = new Set<string>()
  for (const [t, size] of threadSizes.entries()) {
    const topic = topics[t]!
    const keys: Array<string> = []
    // Each detail of a thread says something new (a repeated text would be a duplicate, not saved).
    const pool = details.flatMap((d) => topic.things.map((thing) => fill(d, thing)))
      .map((text) => ({ text, order: rand() }))
      .sort((a, b) => a.order - b.order)
      .map((d) => d.text)
    const save = (parent: string | null, content: string, kind?: "detail" | "choice") => {
      const key = `t${t}-${keys.length}`
      keys.push(key)
      steps.push({ op: "save", key, thread: t, parent, content, writer: pick(writers), ...(kind ? { kind } : {}) })
      return key
    }
    save(null, topic.root)
    let forksMade = 0
    while (keys.length < size) {
      // On one of the last few facts: a thread grows as a conversation does, with side branches.
      const back = Math.min(keys.length, 1 + Math.floor(rand() * 6))
      const parent = keys[keys.length - back]!
      const thing = pick(topic.things)
      if (keys.length % 12 === 5 && keys.length + 2 <= size && !forked.has(parent)) {
        const [a, b] = pick(choices)
        const first = save(parent, fill(a!, thing), "choice")
        const second = save(parent, fill(b!, thing), "choice")
        // Every other fork is settled; the loser's branch then goes stale.
        if (forksMade % 2 === 0) {
          steps.push({
            op: "resolve",
            winner: second,
            loser: first,
            reason: `Chosen for ${topic.area}: it is what the team already runs in production`
          })
        }
        forked.add(parent)
        forksMade++
      } else {
        save(parent, pool.shift() ?? `${fill(pick(details), thing)} (${keys.length})`, "detail")
      }
    }
    if (t === 1) steps.push({ op: "retract", key: keys[7]!, reason: "Saved by mistake: it was about another project" })
  }
  return { steps, forks: forkMarks(steps) }
}

/** A clock `behind` ms in the past, for stamping a memory as if written over the last days. */
const behindClock = (live: Clock.Clock, behind: { ms: number }): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => live.unsafeCurrentTimeMillis() - behind.ms,
  currentTimeMillis: Effect.sync(() => live.unsafeCurrentTimeMillis() - behind.ms),
  unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos() - BigInt(behind.ms) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => live.unsafeCurrentTimeNanos() - BigInt(behind.ms) * 1_000_000n),
  sleep: (d) => live.sleep(d)
})

/**
 * Saves the memory: the facts through the bulk path seed and import use (bulkSave: the same checks
 * and writes as relay_save_fact, a few facts a statement), the decisions and the retraction through
 * relay_resolve_conflict and relay_retract_fact, stamped from three days ago to a few minutes ago;
 * the keys' ids.
 */
export const loadStudioMemory = (seed = 47) =>
  Effect.gen(function*() {
    const { steps, forks } = studioMemory(seed)
    const ids = new Map<string, string>()
    const behind = { ms: 0 }
    const clock = behindClock(Clock.make(), behind)
    const span = 3 * 24 * 3600_000
    const at = (i: number) => {
      behind.ms = Math.round(span * (1 - i / steps.length)) + 5 * 60_000
    }
    let pending: Array<{ readonly key: string; readonly item: Record<string, string> }> = []
    const flush = Effect.suspend(() => {
      const batch = pending
      pending = []
      return batch.length === 0 ? Effect.void : Effect.map(
        Effect.withClock(bulkSave(batch.map((b) => b.item)), clock),
        (saved) => saved.forEach((s, i) => ids.set(batch[i]!.key, s.id))
      )
    })
    for (const [i, step] of steps.entries()) {
      const id = (key: string) => ids.get(key)!
      if (step.op === "save") {
        // A few facts a statement, so the thread's ages differ from batch to batch.
        if (pending.length === 6) yield* flush
        if (pending.length === 0) at(i)
        const inBatch = step.parent !== null && !ids.has(step.parent)
        pending.push({
          key: step.key,
          item: {
            content: step.content,
            written_by: step.writer,
            session_id: `${step.writer}:thread-${step.thread}`,
            request_id: step.key,
            ...(step.parent === null
              ? {}
              : inBatch
              ? { parent_request_id: step.parent }
              : { parent_fact_id: id(step.parent) }),
            ...(step.kind === undefined ? {} : { kind: step.kind })
          }
        })
        continue
      }
      yield* flush
      at(i)
      if (step.op === "resolve") {
        yield* Effect.withClock(
          ok("relay_resolve_conflict", {
            winner_fact_id: id(step.winner),
            loser_fact_id: id(step.loser),
            reason: step.reason,
            resolved_by: "claude-desktop"
          }),
          clock
        )
      } else {
        yield* Effect.withClock(
          ok("relay_retract_fact", { fact_id: id(step.key), reason: step.reason, retracted_by: "cursor" }),
          clock
        )
      }
    }
    yield* flush
    return { ids, forks }
  })
