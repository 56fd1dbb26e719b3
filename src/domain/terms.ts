/**
 * The terms Relay keeps for ranking (BM25, see layers/factStore/termCounts.ts) and the words a
 * question carries that say nothing about its subject. Pure: the same text gives the same terms on
 * write and on read.
 *
 * A term is a lowercased word (letters, digits, `_`, as the full-text index splits them) with its
 * English plural or verb ending taken off: "tokens" and "token", "rotated" and "rotate" rank alike.
 * The stemmer is deliberately light (the engine's own Snowball stemmer decides what matches; these
 * terms only weigh the matches).
 */

/**
 * Words a question is made of that no fact is about: question words, pronouns, auxiliaries,
 * articles, prepositions and the verbs of asking ("what did we decide about X"). `not`, `no` and
 * `never` are not among them: they carry the meaning of a decision.
 */
export const questionWords: ReadonlySet<string> = new Set(
  (
    "what which who whom whose when where why how whats " +
    "a an the this that these those there here " +
    "i me my we us our ours you your it its they them their he she his her " +
    "is am are was were be been being do does did done doing have has had having " +
    "can could should would will shall may might must " +
    "of to in on at by for from with about into onto over under as than then so and or but if " +
    "any some all again also just ever yet " +
    "decide decided decides deciding decision decisions agree agreed say said tell told know knew " +
    "think thought remember recall choose chose chosen pick picked settle settled go went " +
    "currently current now latest status state"
  ).split(" ")
)

const wordPattern = /[\p{L}\p{N}_]+/gu

/** The words of a text as the index splits them, lowercased (a lone `_` is no word). */
export const wordsOf = (text: string): Array<string> =>
  (text.toLowerCase().match(wordPattern) ?? []).filter((w) => /[\p{L}\p{N}]/u.test(w))

const vowel = /[aeiouy]/

/** A light English stem: plurals and -ed/-ing endings; short words and non-letters are kept whole. */
export const stem = (word: string): string => {
  const w = word.toLowerCase()
  if (w.length <= 3 || !/^[a-z]+$/.test(w)) return w
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`
  if (w.endsWith("sses")) return w.slice(0, -2)
  if (w.endsWith("ches") || w.endsWith("shes") || w.endsWith("xes")) return w.slice(0, -2)
  if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) return w.slice(0, -1)
  if (w.endsWith("ing") && w.length > 5 && vowel.test(w.slice(0, -3))) return undouble(w.slice(0, -3))
  if (w.endsWith("ed") && w.length > 4 && vowel.test(w.slice(0, -2))) return undouble(w.slice(0, -2))
  return w
}

/** "stopped" → "stopp" → "stop"; "rotat" stays (then "rotate" → "rotat" too: see `stem` callers). */
const undouble = (s: string): string =>
  s.length > 3 && s[s.length - 1] === s[s.length - 2] && !/[lsz]/.test(s[s.length - 1]!) ? s.slice(0, -1) : s

/**
 * A term as stored and as queried: the stem with a final `e` dropped, so "rotate", "rotated" and
 * "rotating" meet at "rotat".
 */
export const termOf = (word: string): string => {
  const s = stem(word)
  return s.length > 3 && s.endsWith("e") && /^[a-z]+$/.test(s) ? s.slice(0, -1) : s
}

/**
 * The terms a fact is ranked by, in text order with repeats (a term's count in the list is its
 * frequency; the list's length is the fact's length). Question words are left out: no query keeps
 * them, so they would only lengthen every fact alike. At most `maxTermsKept` (a 2,000-character
 * fact has fewer words than that).
 */
export const maxTermsKept = 512

export const termsOf = (content: string): Array<string> =>
  wordsOf(content).filter((w) => !questionWords.has(w)).map(termOf).slice(0, maxTermsKept)

/** Each distinct term once, for the document counts. */
export const distinctTerms = (terms: ReadonlyArray<string>): Array<string> => [...new Set(terms)]
