/** Latency samples: warm-up first, then calls until enough samples or the time budget is spent. */
export interface Stats {
  readonly n: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly mean: number
  readonly min: number
  readonly max: number
}

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN

export const summarise = (samples: ReadonlyArray<number>): Stats => {
  const s = [...samples].sort((a, b) => a - b)
  return {
    n: s.length,
    p50: quantile(s, 0.5),
    p95: quantile(s, 0.95),
    p99: quantile(s, 0.99),
    mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length),
    min: s[0] ?? NaN,
    max: s[s.length - 1] ?? NaN
  }
}

export interface SampleOptions {
  readonly warmup: number
  readonly max: number
  readonly min: number
  readonly budgetMs: number
}

/** `call(i)` gets the iteration number (warm-up calls included), so callers can walk a list of inputs. */
export const sample = async (call: (i: number) => Promise<unknown>, o: SampleOptions): Promise<Stats> => {
  let i = 0
  for (; i < o.warmup; i++) await call(i)
  const samples: Array<number> = []
  const started = performance.now()
  while (samples.length < o.max && (samples.length < o.min || performance.now() - started < o.budgetMs)) {
    const t0 = performance.now()
    await call(i++)
    samples.push(performance.now() - t0)
  }
  return summarise(samples)
}
