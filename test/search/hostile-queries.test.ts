import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, FastCheck, Schema } from "effect"
import { maxTerms, toFullTextQuery } from "../../src/domain/search.js"
import { GraphDatabase } from "../../src/services/GraphDatabase.js"
import { propertyRuns } from "../support/propertyRuns.js"
import { ok, runTool } from "../support/runTool.js"
import { relayTestLayer } from "../support/testLayer.js"
import { errorOf } from "../support/toolOutputs.js"

/**
 * The client's query text never reaches the engine as it is (domain/search.ts): each string that
 * FalkorDB's full-text parser rejects, or that would reach syntax beyond the documented subset,
 * is rewritten; a string with no word at all is `invalid_input` naming `query`. Never `internal`.
 */
describe("toFullTextQuery", () => {
  const table: ReadonlyArray<readonly [string, string | null]> = [
    ["refresh tokens", "refresh tokens"],
    // Question words and stopwords are left out, unless nothing else is left.
    ["what did we decide about refresh tokens?", "refresh tokens"],
    ["What is the migration tool", "migration tool"],
    ["what|tokens", "tokens"],
    ["not kafka", "not kafka"],
    ["what is it", "what is it"],
    ["tok*", "tok*"],
    ["%kafke%", "%kafke%"],
    ["\"refresh token\"", "\"refresh token\""],
    ["redis|postgres cache", "(redis|postgres) cache"],
    // Unbalanced quotes, lone and doubled operators: separators.
    ["\"refresh token", "refresh token"],
    ["token\"", "token"],
    ["token|", "token"],
    ["|token", "token"],
    ["x||b", "(x|b)"],
    ["token -", "token"],
    ["%", null],
    ["%%tok%%", "%tok%"],
    ["%tok%3", "%tok% 3"],
    ["*", null],
    ["x*", "x"],
    // Field modifiers, negation, optional, attributes, parameters, tags, ranges, escapes: words only.
    ["@content:token", "content token"],
    ["-redis", "redis"],
    ["~redis", "redis"],
    ["redis => { $weight: 2 }", "redis weight 2"],
    ["$param", "param"],
    ["@tag:{x b}", "tag x b"],
    ["@n:[1 2]", "n 1 2"],
    ["user\\-service", "user service"],
    ["w'*foo*'", "w foo*"],
    ["(", null],
    ["()", null],
    ["\"\"", null],
    ["\" \"", null],
    // A lone underscore is no term to the engine (and `"_"` would be a syntax error).
    ["_", null],
    ["\"_\" a", "a"],
    ["%_%", null],
    ["snake_case", "snake_case"],
    ["café 日本語 ١٢٣", "café 日本語 ١٢٣"],
    ["emoji 🦊 only", "emoji only"]
  ]
  it.each(table)("%j -> %j", (input, expected) => {
    expect(toFullTextQuery(input)).toBe(expected)
  })

  it(`sends at most ${maxTerms} terms`, () => {
    const q = toFullTextQuery(Array.from({ length: 40 }, (_, i) => `w${i}`).join(" "))
    expect(q?.split(" ")).toHaveLength(maxTerms)
  })
})

const alphabet = FastCheck.constantFrom(
  ..."abcXYZ019_ -|*%\"'@:()[]{}~$\\/.,;!?#&^+=<>`\t\né日𝔘ǅ١\u0301\u200b\u202e".split(""),
  "\u{1F98A}"
)
const hostile = FastCheck.oneof(
  FastCheck.string({ unit: alphabet, minLength: 1, maxLength: 60 }),
  FastCheck.string({ unit: "grapheme", minLength: 1, maxLength: 60 }),
  FastCheck.string({ unit: "binary", minLength: 1, maxLength: 60 })
)

layer(relayTestLayer("search_hostile"))("relay_search with hostile query strings, on the real database", (it) => {
  it.effect("a table of engine-breaking strings: results or invalid_input naming query, never internal", () =>
    Effect.gen(function*() {
      yield* ok("relay_save_fact", {
        content: "Keep refresh tokens in Redis; user-service owns them",
        written_by: "a",
        session_id: "s"
      })
      const engineErrors = [
        "token|",
        "|token",
        "\"refresh",
        "token -",
        "%",
        "\"_\"",
        "%_%",
        "(_|a)",
        "@content:token",
        "-redis",
        "*",
        "((a)",
        "a)",
        "[1 2]",
        "{a}",
        "@",
        ":",
        "\\",
        "'",
        "~",
        "$x",
        "%%%%tok%%%%",
        "\u0000".slice(1) + "a\"b\"c\"",
        "-",
        "w'*'",
        "a=>{$weight:1}"
      ]
      for (const query of engineErrors) {
        const r = yield* runTool("relay_search", { query })
        const code = r.isError === true ? (errorOf(r) as { code: string }).code : "ok"
        expect(code, query).not.toBe("internal")
        if (code !== "ok") {
          expect(errorOf(r)).toEqual({
            code: "invalid_input",
            message: "query: must contain a word of letters or digits"
          })
        }
      }
      const found = yield* ok("relay_search", { query: "\"refresh tokens | -user-service" })
      expect(found.hits).toHaveLength(1)
    }))

  it.effect("too long, empty or not a string: invalid_input naming query", () =>
    Effect.gen(function*() {
      for (const query of ["", "x".repeat(201), 5, null, ["a"]]) {
        const r = yield* runTool("relay_search", { query })
        expect(r.isError).toBe(true)
        expect((errorOf(r) as { code: string; message: string }).code).toBe("invalid_input")
        expect((errorOf(r) as { message: string }).message).toMatch(/^query: /)
      }
      const r = yield* runTool("relay_search", {})
      expect(errorOf(r)).toEqual({ code: "invalid_input", message: "query: is required" })
    }))

  it.effect.prop(
    "random strings: a result or invalid_input naming query, never internal, and nothing written",
    [hostile],
    ([query]) =>
      Effect.gen(function*() {
        const db = yield* GraphDatabase
        const count = db.read("MATCH (n) RETURN count(n) AS n", {}, Schema.Struct({ n: Schema.Number }))
        const before = yield* count
        const r = yield* runTool("relay_search", { query, status: "any" })
        if (r.isError === true) {
          const error = errorOf(r) as { code: string; message: string }
          expect(error.code, JSON.stringify(query)).toBe("invalid_input")
          expect(error.message).toMatch(/^query: /)
          expect(toFullTextQuery(query) === null || [...query].length > 200).toBe(true)
        }
        expect(yield* count).toEqual(before)
      }),
    { fastCheck: { numRuns: propertyRuns(400) } }
  )
})
