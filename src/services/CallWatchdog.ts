import { Clock, Deferred, Duration, Effect, Exit, Fiber, FiberId } from "effect"

/**
 * Milliseconds on the Clock's monotonic time (the live Clock's nanoseconds come from hrtime): a wall
 * clock set back would otherwise stretch every deadline taken before it.
 */
const monotonicMillis = Effect.map(Clock.currentTimeNanos, (nanos) => Number(nanos / 1_000_000n))

/** A call under way: the fiber running it and when its budget runs out. */
interface Watched {
  readonly fiber: Fiber.RuntimeFiber<unknown, unknown>
  readonly deadline: number
  /** Set when the watchdog interrupted the fiber for running past `deadline`. */
  expired: boolean
}

/**
 * One fiber for the whole process that interrupts the calls running past their deadline, on
 * Effect's Clock (a TestClock drives it). `Effect.timeoutFail` starts a sleeping fiber for every
 * call and interrupts it when the call ends: ~0.3 ms of each call, measured right after a query
 * (when the process's caches are cold), for a timer that almost never fires.
 *
 * The watchdog sleeps until the earliest deadline it holds, or, holding none, until a call comes.
 */
export class CallWatchdog extends Effect.Service<CallWatchdog>()("relay/CallWatchdog", {
  scoped: Effect.gen(function*() {
    const watched = new Set<Watched>()
    // Completed by the first call watched while the watchdog has nothing to watch.
    let idle: Deferred.Deferred<void> | null = null

    const expire = (now: number, self: FiberId.FiberId) => {
      let next = Infinity
      for (const w of watched) {
        if (w.deadline <= now) {
          watched.delete(w)
          w.expired = true
          w.fiber.unsafeInterruptAsFork(self)
        } else next = Math.min(next, w.deadline)
      }
      return next
    }

    const round = Effect.fiberIdWith((self) =>
      Effect.flatMap(monotonicMillis, (now) => {
        const next = expire(now, self)
        if (next !== Infinity) return Clock.sleep(Duration.millis(next - now))
        // Checked and armed in one step, so a call watched in between cannot be missed.
        const wake = Deferred.unsafeMake<void>(self)
        idle = wake
        return Deferred.await(wake)
      })
    )
    yield* Effect.forkScoped(Effect.forever(round))

    const watch = (fiber: Fiber.RuntimeFiber<unknown, unknown>, millis: number) =>
      Effect.map(monotonicMillis, (now): Watched => {
        const w: Watched = { fiber, deadline: now + millis, expired: false }
        watched.add(w)
        if (idle !== null) {
          Deferred.unsafeDone(idle, Exit.void)
          idle = null
        }
        return w
      })

    /**
     * As `Effect.timeoutFail`: `self` in a fiber of its own, interrupted once `duration` has passed,
     * and that interruption (only that one) answered as `onTimeout`. Interrupting the caller
     * interrupts `self` too (it is the caller's child).
     */
    const timeoutFail = <A, E, R, E2>(
      self: Effect.Effect<A, E, R>,
      options: { readonly duration: Duration.Duration; readonly onTimeout: () => E2 }
    ): Effect.Effect<A, E | E2, R> =>
      Effect.flatMap(
        Effect.fork(self),
        (fiber) =>
          Effect.flatMap(watch(fiber, Duration.toMillis(options.duration)), (w) =>
            Fiber.await(fiber).pipe(
              Effect.ensuring(Effect.sync(() => watched.delete(w))),
              Effect.flatMap((exit): Effect.Effect<A, E | E2> =>
                w.expired && Exit.isInterrupted(exit) ? Effect.fail(options.onTimeout()) : exit
              )
            ))
      )

    return { timeoutFail, watching: () => watched.size }
  })
}) {}
