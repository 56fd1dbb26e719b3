import { Deferred, Duration, Effect, Exit, Fiber, FiberId } from "effect"

/**
 * The contract: with the database down every tool answers within 3 s. A hung server costs a 2 s
 * query timeout, a retry and a connect that hangs too; 2.5 s leaves half a second for the reply
 * to reach the client on a busy machine.
 */
export const callBudget = Duration.millis(2500)

/** A call under way: the fiber running it and when its budget runs out. */
interface Watched {
  readonly fiber: Fiber.RuntimeFiber<unknown, unknown>
  readonly deadline: number
  /** Set when the watchdog interrupted the fiber for running past `deadline`. */
  expired: boolean
}

/**
 * One fiber for each stack (each runtime that provides it) that interrupts the calls running past
 * `callBudget`, on the Clock the stack was built with (a TestClock drives it). `Effect.timeoutFail`
 * starts a sleeping fiber for every call and interrupts it when the call ends: ~0.3 ms of each
 * call, measured right after a query (when the process's caches are cold), for a timer that almost
 * never fires.
 *
 * Every call has the same budget and time only moves forward, so a call watched later has a later
 * deadline: the watchdog sleeps until the earliest one it holds, or, holding none, until a call
 * comes. Once its scope closes it stops every call it watched and any call after, so no call is
 * left without a budget.
 */
export class CallWatchdog extends Effect.Service<CallWatchdog>()("relay/CallWatchdog", {
  scoped: Effect.gen(function*() {
    const clock = yield* Effect.clock
    // The Clock's monotonic time (the live Clock's nanoseconds come from hrtime): a wall clock set
    // back would otherwise stretch every deadline taken before it.
    const now = Effect.map(clock.currentTimeNanos, (nanos) => Number(nanos / 1_000_000n))
    const budget = Duration.toMillis(callBudget)
    const watched = new Set<Watched>()
    // Completed by the first call watched while the watchdog has nothing to watch.
    let idle: Deferred.Deferred<void> | null = null
    let closed = false

    const stop = (w: Watched, by: FiberId.FiberId) => {
      watched.delete(w)
      w.expired = true
      w.fiber.unsafeInterruptAsFork(by)
    }

    const round = Effect.fiberIdWith((self) =>
      Effect.flatMap(now, (at) => {
        let next = Infinity
        for (const w of watched) {
          if (w.deadline <= at) stop(w, self)
          else next = Math.min(next, w.deadline)
        }
        if (next !== Infinity) return clock.sleep(Duration.millis(next - at))
        // Checked and armed in one step, so a call watched in between cannot be missed.
        const wake = Deferred.unsafeMake<void>(self)
        idle = wake
        return Deferred.await(wake)
      })
    )
    yield* Effect.forkScoped(Effect.forever(round))
    yield* Effect.addFinalizer(() =>
      Effect.fiberIdWith((self) =>
        Effect.sync(() => {
          closed = true
          for (const w of watched) stop(w, self)
        })
      )
    )

    const watch = (fiber: Fiber.RuntimeFiber<unknown, unknown>) =>
      Effect.fiberIdWith((self) =>
        Effect.map(now, (at): Watched => {
          const w: Watched = { fiber, deadline: at + budget, expired: false }
          if (closed) {
            stop(w, self)
            return w
          }
          watched.add(w)
          if (idle !== null) {
            Deferred.unsafeDone(idle, Exit.void)
            idle = null
          }
          return w
        })
      )

    /**
     * `self` in a fiber of its own, interrupted once `callBudget` has passed, and that interruption
     * (only that one) answered as `onTimeout`. Like `Effect.timeoutFail`, interrupting the caller
     * interrupts `self` and waits until it has stopped. Unlike it, FiberRefs `self` sets stay in it
     * (every one a call sets is set with `Effect.locally`, so none is lost).
     */
    const within = <A, E, R, E2>(self: Effect.Effect<A, E, R>, onTimeout: () => E2): Effect.Effect<A, E | E2, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(
          Effect.fork(restore(self)),
          (fiber) =>
            Effect.flatMap(watch(fiber), (w) =>
              restore(Fiber.await(fiber)).pipe(
                Effect.onInterrupt(() => Fiber.interrupt(fiber)),
                Effect.ensuring(Effect.sync(() => watched.delete(w))),
                Effect.flatMap((exit): Effect.Effect<A, E | E2> =>
                  w.expired && Exit.isInterrupted(exit) ? Effect.fail(onTimeout()) : exit
                )
              ))
        )
      )

    /** How many calls are watched now (for tests and diagnostics). */
    const watching = () => watched.size
    return { within, watching }
  })
}) {}
