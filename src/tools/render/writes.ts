import type { Fact } from "../../domain/fact.js"
import type {
  ConfirmFactOutput,
  ResolveConflictOutput,
  RetractFactOutput,
  SaveFactOutput
} from "../../domain/outputs.js"
import { list, type Page, quote, type Render } from "./page.js"
import { staleLines } from "./parts.js"
import { procedureLines } from "./procedures.js"

export const renderSaveFact: Render<typeof SaveFactOutput.Type> = (o, p) => [
  `Saved: ${p.fact(o.fact)}`,
  ...(o.procedure === undefined ? [] : procedureLines(o.procedure, p).slice(1)),
  ...(o.revision === undefined ? [] : [
    `Supersedes: ${p.fact(o.revision.superseded)} because ${quote(o.revision.reason)}`,
    ...staleLines(
      p,
      `Made stale (built on it${
        o.revision.stale_total > o.revision.stale.length ? `, ${o.revision.stale_total} in all` : ""
      }), by distance`,
      o.revision,
      o.revision.superseded.id
    ),
    ...list("Still holds (confirmed by you)", o.revision.still_holds ?? [], (f) => p.fact(f), null)
  ]),
  ...(o.duplicate_of === null ? [] : [`Duplicate of: ${p.fact(o.duplicate_of)}`]),
  ...(o.fork === null ? [] : list(
    `Fork: siblings that say something else${
      o.fork.siblings.length < o.fork.siblings_total ? `, ${o.fork.siblings_total} in all, the latest shown` : ""
    }`,
    o.fork.siblings,
    (f) => p.fact(f, { parent: false }),
    null
  )),
  ...(o.fork === null ? [] : [compatibleHint(p, [o.fact, ...o.fork.siblings.slice(-9)])]),
  ...(o.compared === undefined ? [] : [
    ...list(
      `Compared, no conflict (fewer than 2 shared words)${
        o.compared.siblings.length < o.compared.siblings_total
          ? `, ${o.compared.siblings_total} in all, the latest shown`
          : ""
      }`,
      o.compared.siblings,
      (f) => p.fact(f, { parent: false }),
      null
    ),
    "If one of these answers the same question differently, decide it now: relay_resolve_conflict (or name it in contradicts when saving)."
  ]),
  ...(o.links === undefined ? [] : [
    `Similar in other threads (builds_on or supersedes one, or leave them): ${
      o.links.map((l) => `${p.id(l.fact_id)} ${quote(l.text)}`).join("; ")
    }`
  ]),
  ...(o.also_under ?? []).flatMap((u) => [
    ...(u.duplicate_of === null ? [] : [`Under ${p.id(u.parent_id)} too, duplicate of: ${p.fact(u.duplicate_of)}`]),
    ...(u.siblings.length === 0 ? [] : [
      ...list(
        `Fork under ${p.id(u.parent_id)} too${
          u.siblings.length < u.siblings_total ? `, ${u.siblings_total} in all, the latest shown` : ""
        }`,
        u.siblings,
        (f) => p.fact(f, { parent: false }),
        null
      ),
      compatibleHint(p, [o.fact, ...u.siblings.slice(-9)])
    ])
  ])
]

/** The one call that records a fork's siblings as all holding (fact_ids takes at most 10). */
const compatibleHint = (p: Page, facts: ReadonlyArray<Fact>) =>
  `If all can hold: relay_resolve_conflict outcome "compatible", fact_ids [${
    facts.map((f) => quote(p.id(f.id))).join(", ")
  }].`

export const renderResolveConflict: Render<typeof ResolveConflictOutput.Type> = (o, p) =>
  o.winner === undefined || o.loser === undefined ?
    [
      `${o.already_resolved ? "Already recorded" : "Recorded"} as compatible by ${o.resolved_by} because ${
        quote(o.reason)
      }; all stand`,
      ...(o.facts ?? []).map((f) => `Compatible: ${p.fact(f)}`)
    ] :
    [
      `${o.already_resolved ? "Already resolved" : "Resolved"} by ${o.resolved_by} because ${quote(o.reason)}`,
      `Winner: ${p.fact(o.winner)}`,
      `Loser: ${p.fact(o.loser)}`,
      ...staleLines(p, "Now stale (built on the loser), by distance", o, o.loser.id)
    ]

export const renderRetractFact: Render<typeof RetractFactOutput.Type> = (o, p) => [
  `${o.already_retracted ? "Already retracted" : "Retracted"} by ${o.retracted_by} ${p.when(o.created_at)} because ${
    quote(o.reason)
  }`,
  `Fact: ${p.fact(o.fact)}`,
  ...staleLines(p, "Now stale (built on it), by distance", o, o.fact.id)
]

export const renderConfirmFact: Render<typeof ConfirmFactOutput.Type> = (o, p) => [
  `${o.already_confirmed ? "Already confirmed" : "Confirmed"} by ${o.confirmed_by} ${p.when(o.created_at)} because ${
    quote(o.reason)
  }`,
  `Fact: ${p.fact(o.fact)}`,
  ...(o.already_confirmed ? [] : [
    o.refreshed === 0
      ? "Nothing below it turned current with it."
      : `${o.refreshed} fact${
        o.refreshed === 1 ? "" : "s"
      } built on it turned current with it (relay_get_impact lists them).`
  ])
]
