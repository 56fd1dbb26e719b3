import type { Fact } from "../../domain/fact.js"
import { quote } from "../../domain/quote.js"

export { quote } from "../../domain/quote.js"

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

/**
 * A stamp as an age ("5m ago", "3h ago", "12d ago"; a date past 60 days): a model reads
 * "2026-12-01T13:20:46.577Z" as about twelve tokens and "3h ago" as three. structuredContent keeps
 * the exact stamp.
 */
export const age = (iso: string, now: number): string => {
  const at = Date.parse(iso)
  if (Number.isNaN(at)) return iso
  const ago = now - at
  return ago < minute ? "just now" : ago < hour ?
    `${Math.floor(ago / minute)}m ago` :
    ago < 2 * day ?
    `${Math.floor(ago / hour)}h ago` :
    ago < 60 * day ?
    `${Math.floor(ago / day)}d ago` :
    iso.slice(0, 10)
}

/** A moment ahead as a time left ("in 4m", "in 30s"); one passed as an age. */
export const until = (iso: string, now: number): string => {
  const at = Date.parse(iso)
  if (Number.isNaN(at) || at <= now) return age(iso, now)
  const ahead = at - now
  return ahead < minute ? `in ${Math.ceil(ahead / 1000)}s` : ahead < hour ?
    `in ${Math.ceil(ahead / minute)}m` :
    ahead < 2 * day ?
    `in ${Math.ceil(ahead / hour)}h` :
    `in ${Math.ceil(ahead / day)}d`
}

/** The short form of each fact id in one reply (the edge's ShortIds). */
interface IdShortener {
  readonly of: (id: string) => string
}

/**
 * What one reply's text is written with: short ids that are unique among the ids in the reply, ages
 * against one `now`, and the facts already named (`shown`) and written out whole (`whole`): each
 * fact's whole text once, and a text cut where it was first named is written whole where the fact
 * is next listed, so no reply leaves a fact's text only cut.
 */
export class Page {
  private readonly shown = new Set<string>()
  private readonly whole = new Set<string>()
  constructor(readonly ids: IdShortener, readonly now: number) {}
  id = (id: string): string => this.ids.of(id)
  when = (iso: string): string => age(iso, this.now)
  /** A moment ahead, as the time left. */
  left = (iso: string): string => until(iso, this.now)
  /**
   * `<id> [status] <writer> <age>[ on <parent>[, <parent>...]]: <text>`, with the parents and the
   * text as the caller writes them; active is the usual status and is left unsaid.
   */
  line = (f: Fact, parents: ReadonlyArray<string>, text: string): string =>
    `${this.id(f.id)}${f.status === "active" ? "" : ` [${f.status}]`} ${f.written_by} ${this.when(f.created_at)}${
      parents.length === 0 ? "" : ` on ${parents.map(this.id).join(", ")}`
    }: ${text}`
  /** The fact's line with its text quoted, its parents unless `parent` is false; its whole text is then in the reply. */
  fact = (f: Fact, options: { parent?: boolean } = {}): string => {
    this.shown.add(f.id)
    this.whole.add(f.id)
    const parents = options.parent === false || f.parent_id === null ? [] : f.builds_on ?? [f.parent_id]
    return this.line(f, parents, quote(f.content))
  }
  /** Whether the fact's whole text is already in the reply. */
  seen = (id: string): boolean => this.whole.has(id)
  /** The fact's id with its text (cut at 80 characters) the first time the reply names it, its id after that. */
  named = (f: Fact): string => {
    if (this.shown.has(f.id)) return this.id(f.id)
    this.shown.add(f.id)
    if (f.content.length <= 80) this.whole.add(f.id)
    return `${this.id(f.id)} ${quote(f.content.length > 80 ? `${f.content.slice(0, 79)}…` : f.content)}`
  }
  /** The fact in full the first time its whole text is due, its id after that. */
  ref = (f: Fact, options: { parent?: boolean } = {}): string =>
    this.whole.has(f.id) ? this.id(f.id) : this.fact(f, options)
}

/** A tool's output as the lines of its reply text, written on one Page. */
export type Render<O> = (output: O, page: Page) => ReadonlyArray<string>

/**
 * `Title (n):` and one line per item; `empty` (or nothing at all, when null) for an empty list. A
 * list that goes on (`paged`) says `n on this page`, so a page size is never read as a total.
 */
export const list = <A>(
  title: string,
  items: ReadonlyArray<A>,
  line: (a: A) => string,
  empty: string | null,
  paged = false
) =>
  items.length > 0 ?
    [`${title} (${items.length}${paged ? " on this page" : ""}):`, ...items.map(line)] :
    empty === null ?
    [] :
    [`${title}: ${empty}`]

/**
 * One line when a list goes on: the call that reads the next page (`call`: the tool and any argument
 * it must repeat), so a reader that sees only the text knows exactly what to send.
 */
export const more = (o: { readonly next_cursor: string | null }, call: string) =>
  o.next_cursor === null ? [] : [`More: ${call} with cursor ${quote(o.next_cursor)} (other arguments as before).`]
