import type { HttpClient } from "./httpRelay.js"

/** One save a writer made while the database failed over: whether it was acknowledged, and when. */
export interface WriteOutcome {
  readonly content: string
  readonly acked: boolean
  readonly startedAt: number
  readonly at: number
  readonly error?: string
}

/**
 * Saves `contentOf(n)` through `client`, one after another, until `stopped()`, handing each save's
 * outcome to `record` (a throw counts as an error). After a failed save it waits 50 ms, as the
 * error says to retry shortly: a client that retries at once only spins.
 */
export const writeUntil = async (
  client: HttpClient,
  stopped: () => boolean,
  contentOf: (n: number) => string,
  sessionId: string,
  record: (outcome: WriteOutcome) => void
) => {
  for (let n = 0; !stopped(); n++) {
    const content = contentOf(n)
    const startedAt = Date.now()
    const reply = await client.call("relay_save_fact", { content, session_id: sessionId })
      .catch((e: unknown) => ({
        isError: true,
        structuredContent: { error: { code: "thrown", message: String(e) } }
      }))
    const error = reply.isError === true
      ? `${reply.structuredContent?.error?.code}: ${reply.structuredContent?.error?.message}`
      : undefined
    record({
      content,
      acked: reply.isError !== true,
      startedAt,
      at: Date.now(),
      ...(error === undefined ? {} : { error })
    })
    if (error !== undefined) await new Promise((r) => setTimeout(r, 50))
  }
}
