import { ParseResult, Schema } from "effect"
import { characterCount } from "./content.js"
import { questionWords, termOf } from "./terms.js"

/**
 * relay_search's query language: a small, safe subset of FalkorDB's full-text (RediSearch) syntax.
 *
 * The client's text is never handed to the engine as it is. It is read as a list of items and
 * written out again by `toFullTextQuery`, which emits only word characters, single spaces and the
 * few operators it places itself, so no input can make the engine report a syntax error (which
 * would surface as `internal`), reach field modifiers (`@content:`), parameters (`$x`), negations
 * (a lone `-x` matches every fact), the match-all `*`, or distance and attribute syntax.
 *
 *   word         the word or a form of it (English stemming: "tokens" also finds "token")
 *   word*        words that start with it (at least 2 characters before the `*`)
 *   %word%       words one letter away (a typo)
 *   "a b c"      the words next to each other, in that order
 *   a|b          either; items separated by spaces must all match
 *
 * Anything else (punctuation, operators, an unclosed quote) separates words, as the index's own
 * tokenizer does when it reads a fact (`user-service` is indexed as `user` and `service`).
 */

/** Letters, digits (any script) and `_`, which the engine's tokenizer keeps inside a word. */
const word = /^[\p{L}\p{N}_]+/u

type Term =
  | { readonly _tag: "Word"; readonly text: string }
  | { readonly _tag: "Prefix"; readonly text: string }
  | { readonly _tag: "Fuzzy"; readonly text: string }
  | { readonly _tag: "Phrase"; readonly words: ReadonlyArray<string> }

type Token = Term | { readonly _tag: "Or" }

/** At most this many terms are sent: a 200-character query of fuzzy terms stays cheap. */
export const maxTerms = 16

/**
 * A word needs a letter or a digit: the engine reads a lone `_` as no term at all and then rejects
 * `"_"`, `%_%` and `(_|a)` as syntax errors.
 */
const meaningful = (w: string): boolean => /[\p{L}\p{N}]/u.test(w)

const wordsIn = (s: string): Array<string> => (s.match(/[\p{L}\p{N}_]+/gu) ?? []).filter(meaningful)

const lex = (input: string): Array<Token> => {
  const tokens: Array<Token> = []
  let i = 0
  while (i < input.length) {
    const rest = input.slice(i)
    const c = rest[0] as string
    if (c === "|") {
      tokens.push({ _tag: "Or" })
      i++
      continue
    }
    if (c === "\"") {
      const close = rest.indexOf("\"", 1)
      if (close > 0) {
        const words = wordsIn(rest.slice(1, close))
        if (words.length === 1) tokens.push({ _tag: "Word", text: words[0] as string })
        else if (words.length > 1) tokens.push({ _tag: "Phrase", words })
        i += close + 1
        continue
      }
      i++
      continue
    }
    if (c === "%") {
      const fuzzy = /^%([\p{L}\p{N}_]+)%/u.exec(rest)
      if (fuzzy !== null && meaningful(fuzzy[1] as string)) {
        tokens.push({ _tag: "Fuzzy", text: fuzzy[1] as string })
        i += fuzzy[0].length
        continue
      }
      i++
      continue
    }
    const w = word.exec(rest)
    if (w !== null) {
      const text = w[0]
      const starred = rest[text.length] === "*"
      if (meaningful(text)) {
        tokens.push(starred && [...text].length >= 2 ? { _tag: "Prefix", text } : { _tag: "Word", text })
      }
      i += text.length + (starred ? 1 : 0)
      continue
    }
    // A character that is neither a word character nor one of ours: a separator. Step over a whole
    // code point so a surrogate pair is never split.
    i += (input.codePointAt(i) ?? 0) > 0xffff ? 2 : 1
  }
  return tokens
}

const termText = (t: Term): string => {
  switch (t._tag) {
    case "Word":
      return t.text
    case "Prefix":
      return `${t.text}*`
    case "Fuzzy":
      return `%${t.text}%`
    case "Phrase":
      return `"${t.words.join(" ")}"`
  }
}

/** A plain word that says nothing of the subject ("what", "did", "we", "the"): see terms.ts. */
const isQuestionWord = (t: Term): boolean => t._tag === "Word" && questionWords.has(t.text.toLowerCase())

/**
 * The client's text as groups of alternatives (`a|b`; a `|` with nothing on one side is a
 * separator), question words and stopwords left out of every group unless nothing would be left.
 */
const groupsOf = (input: string): Array<Array<Term>> => {
  const groups: Array<Array<Term>> = []
  let joinNext = false
  let terms = 0
  for (const token of lex(input)) {
    if (token._tag === "Or") {
      joinNext = groups.length > 0
      continue
    }
    if (terms >= maxTerms) break
    terms++
    const last = groups[groups.length - 1]
    if (joinNext && last !== undefined) last.push(token)
    else groups.push([token])
    joinNext = false
  }
  const meaningfulGroups = groups.map((g) => g.filter((t) => !isQuestionWord(t))).filter((g) => g.length > 0)
  return meaningfulGroups.length > 0 ? meaningfulGroups : groups
}

const groupText = (g: ReadonlyArray<Term>): string =>
  g.length === 1 ? termText(g[0] as Term) : `(${g.map(termText).join("|")})`

/** The engine's query for the client's text (every item must match), or null when it holds no word at all. */
export const toFullTextQuery = (input: string): string | null => {
  const groups = groupsOf(input)
  return groups.length === 0 ? null : groups.map(groupText).join(" ")
}

/**
 * What a search asks, from the engine's query (`toFullTextQuery`'s output, which reads back the same):
 * `all`, every item must match; `any`, at least one item (null when there is one item only, so any is
 * all); `terms`, the ranking terms (terms.ts) of its words, phrases' words included, prefix and typo
 * items left out (they rank by recency among themselves).
 */
export interface SearchPlan {
  readonly all: string
  readonly any: string | null
  readonly terms: ReadonlyArray<string>
  /**
   * Per item, its alternatives, each the terms that must all be there (a phrase's words; a prefix
   * as `p*`): the thread scope matches facts' stored terms with these (see threadSearch.ts).
   */
  readonly items: ReadonlyArray<ReadonlyArray<ReadonlyArray<string>>>
}

const itemTerms = (t: Term): Array<string> => {
  switch (t._tag) {
    case "Word":
    case "Fuzzy":
      return [termOf(t.text)]
    case "Prefix":
      return [`${t.text.toLowerCase()}*`]
    case "Phrase":
      return t.words.map(termOf)
  }
}

export const searchPlan = (engine: string): SearchPlan => {
  const groups = groupsOf(engine)
  const all = groups.map(groupText).join(" ")
  const terms = [
    ...new Set(groups.flatMap((g) => g.flatMap((t) => t._tag === "Word" || t._tag === "Phrase" ? itemTerms(t) : [])))
  ]
  return {
    all,
    any: groups.length > 1 ? groups.flatMap((g) => g.map(termText)).join("|") : null,
    terms,
    items: groups.map((g) => g.map(itemTerms))
  }
}

export const queryDescription = "Words; word*, %typo%, \"phrase\", a|b"

const noWordMessage = "must contain a word of letters or digits"

/** The `query` field: the client's text (1-200 characters), decoded to the engine's query. */
export const SearchQuery = Schema.transformOrFail(
  Schema.String.pipe(
    Schema.filter((s) => {
      const n = characterCount(s)
      return n >= 1 && n <= 200 ? undefined : "must be 1-200 characters"
    }),
    Schema.annotations({
      description: queryDescription,
      jsonSchema: { type: "string", minLength: 1, maxLength: 200, description: queryDescription }
    })
  ),
  Schema.String,
  {
    strict: true,
    decode: (s, _, ast) => {
      const engine = toFullTextQuery(s)
      return engine === null
        ? ParseResult.fail(new ParseResult.Type(ast, s, noWordMessage))
        : ParseResult.succeed(engine)
    },
    // The engine's query is itself a valid query that reads back the same.
    encode: (engine) => ParseResult.succeed(engine)
  }
)
