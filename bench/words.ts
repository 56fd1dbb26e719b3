import { rng } from "./graph.js"

/**
 * Engineering vocabulary for search benchmarks: bench/graph.ts's facts use a few dozen words, so
 * every search term would match a fourteenth of the graph. Appending a few of these (Zipf-like: a
 * few words are common, most are rare) gives the full-text index a realistic spread of term
 * frequencies: some queries match thousands of facts, most match tens.
 */
export const vocabulary: ReadonlyArray<string> = (
  "refresh token tokens session cookie httpOnly SameSite JWT OAuth PKCE login logout password reset " +
  "Postgres PostgreSQL migration schema index vacuum replica failover pgbouncer pooling connection " +
  "Redis cache eviction TTL invalidation stampede warmup Kafka NATS queue consumer producer offset " +
  "partition retry backoff idempotency deduplication webhook callback signature HMAC encryption " +
  "TLS certificate rotation secret vault KMS envelope S3 bucket lifecycle archive snapshot backup " +
  "restore latency throughput p99 p95 timeout deadline budget circuit breaker bulkhead sharding " +
  "tenant isolation quota billing invoice Stripe subscription proration refund currency rounding " +
  "search ranking relevance stemming tokenizer embedding vector similarity reranker feature flag " +
  "rollout canary blue green deploy Kubernetes Helm Terraform Docker image registry CI pipeline " +
  "flaky test fixture snapshot coverage lint formatter TypeScript Effect schema decoder monorepo " +
  "pnpm workspace bundler esbuild Vite React hydration SSR accessibility keyboard focus contrast " +
  "i18n locale timezone daylight UTC cron scheduler batch export CSV parquet analytics dashboard " +
  "metrics tracing OpenTelemetry span sampling logging redaction PII GDPR retention audit trail " +
  "permissions RBAC role admin invite onboarding email template bounce SMTP notification push mobile " +
  "offline sync conflict merge CRDT websocket heartbeat reconnect pagination cursor keyset rate limit " +
  "gateway proxy nginx CDN cache-control ETag compression gzip brotli upload multipart checksum"
).split(" ")

/** `count` words, Zipf-distributed over the vocabulary (word k is about 1/k as common as the first). */
export const wordsFor = (seed: number, count: number): string => {
  const rand = rng(seed)
  const n = vocabulary.length
  const harmonic = Array.from({ length: n }, (_, k) => 1 / (k + 1)).reduce((a, b) => a + b, 0)
  const out: Array<string> = []
  for (let i = 0; i < count; i++) {
    let r = rand() * harmonic
    let k = 0
    while (k < n - 1 && (r -= 1 / (k + 1)) > 0) k++
    // Shuffle which words are common, deterministically, so "refresh" is not always the most frequent.
    out.push(vocabulary[(k * 37) % n] as string)
  }
  return out.join(" ")
}
