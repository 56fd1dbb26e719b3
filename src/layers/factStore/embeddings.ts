import { Config, Duration, Effect, Option, Redacted, Schema } from "effect"
import { positiveSetting } from "../assembly/positiveSetting.js"

/**
 * Optional semantic recall (issue 41 point 3): an OpenAI-compatible `POST /v1/embeddings` endpoint
 * (a local Ollama, a hosted API) turns a fact's text, and a search's words, into a vector. Without
 * RELAY_EMBEDDINGS_URL nothing here runs: no request, no index, no statement.
 *
 * An embedding never fails a save or a search: an endpoint that is down, slow (past the timeout) or
 * answers something else gives no vector, the save lands without one (the backfill adds it later,
 * vectors.ts) and the search ranks by words alone. What is logged names neither the text nor the key.
 */
export interface EmbeddingSettings {
  readonly url: string
  readonly model: string
  readonly key: Redacted.Redacted<string> | null
  readonly timeout: Duration.Duration
  /** The cosine similarity from which a hit the vector carries is strong (issue 41: honest about strength). */
  readonly strong: number
  /** How often the backfill looks for facts without a vector. */
  readonly backfillEvery: Duration.Duration
}

/** `http://host:11434`, `.../v1` and `.../v1/embeddings` all name the same endpoint. */
const endpointOf = (url: string): string => {
  const u = url.trim().replace(/\/+$/, "")
  return u.endsWith("/embeddings") ? u : u.endsWith("/v1") ? `${u}/embeddings` : `${u}/v1/embeddings`
}

/** The settings, or None when RELAY_EMBEDDINGS_URL is not set (or blank). */
export const embeddingSettings: Config.Config<Option.Option<EmbeddingSettings>> = Config.all({
  url: Config.option(Config.string("RELAY_EMBEDDINGS_URL")),
  model: Config.string("RELAY_EMBEDDINGS_MODEL").pipe(Config.withDefault("nomic-embed-text")),
  key: Config.option(Config.redacted("RELAY_EMBEDDINGS_KEY")),
  timeoutMs: positiveSetting("RELAY_EMBEDDINGS_TIMEOUT_MS", 1000),
  strong: Config.number("RELAY_EMBEDDINGS_STRONG").pipe(
    Config.withDefault(0.75),
    Config.validate({
      message: "RELAY_EMBEDDINGS_STRONG must be a number from 0 to 1",
      validation: (n) => n >= 0 && n <= 1
    })
  ),
  backfillMs: positiveSetting("RELAY_EMBEDDINGS_BACKFILL_MS", 30_000)
}).pipe(Config.map((s) =>
  Option.flatMap(s.url, (url) =>
    url.trim() === "" ? Option.none() : Option.some({
      url: endpointOf(url),
      model: s.model,
      key: Option.getOrNull(Option.filter(s.key, (k) => Redacted.value(k).trim() !== "")),
      timeout: Duration.millis(s.timeoutMs),
      strong: s.strong,
      backfillEvery: Duration.millis(s.backfillMs)
    }))
))

const Reply = Schema.Struct({
  data: Schema.Array(Schema.Struct({ embedding: Schema.Array(Schema.Number), index: Schema.optional(Schema.Number) }))
})

export interface Embedder {
  readonly settings: EmbeddingSettings
  /** One vector a text, in order; null when the endpoint gave none (down, slow, malformed). Never fails. */
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>> | null>
}

/** The endpoint's vectors, checked: as many as texts, one dimension, every number finite, none all zero. */
const usable = (texts: number, reply: typeof Reply.Type): ReadonlyArray<ReadonlyArray<number>> | null => {
  const data = [...reply.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
  if (data.length !== texts || data.length === 0) return null
  const dim = data[0]!.embedding.length
  const ok = data.every((d) =>
    d.embedding.length === dim && dim > 0 && d.embedding.every(Number.isFinite) && d.embedding.some((x) => x !== 0)
  )
  return ok ? data.map((d) => d.embedding) : null
}

export const makeEmbedder = (settings: EmbeddingSettings): Embedder => ({
  settings,
  embed: (texts) =>
    texts.length === 0 ? Effect.succeed([]) : Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(settings.url, {
          method: "POST",
          signal,
          headers: {
            "content-type": "application/json",
            ...(settings.key === null ? {} : { authorization: `Bearer ${Redacted.value(settings.key)}` })
          },
          body: JSON.stringify({ model: settings.model, input: texts })
        })
        if (!response.ok) throw new Error(`status ${response.status}`)
        return (await response.json()) as unknown
      },
      catch: () => "unreachable" as const
    }).pipe(
      Effect.flatMap((body) => Effect.mapError(Schema.decodeUnknown(Reply)(body), () => "malformed" as const)),
      Effect.map((reply) => usable(texts.length, reply)),
      Effect.timeoutFail({ duration: settings.timeout, onTimeout: () => "slow" as const }),
      // Neither the text nor the key: only what went wrong.
      Effect.catchAll((why) => Effect.as(Effect.logDebug("no embedding").pipe(Effect.annotateLogs({ why })), null))
    )
})
