import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Option, Schedule } from "effect"
import { sendCommands } from "../../src/layers/database/serverCommands.js"
import { infoField } from "../../src/layers/database/serverInfo.js"
import { rewriteLongTail } from "../../src/layers/embedded/aofTail.js"
import { embeddedStatus, ensureEmbeddedServer } from "../../src/layers/embedded/EmbeddedServer.js"
import { inDataDir, tempDataDir } from "./helpers.js"

/**
 * Issue 40: after a SIGKILL the embedded server replayed its whole append-only file before answering
 * (42-48 s for 31.6 MB, 2.4 s right after a rewrite), since nothing rewrote it until it doubled. Relay
 * now asks for a rewrite once the tail passes its budget (here 64 KiB, so the test writes little).
 */
layer(NodeContext.layer, { excludeTestServices: true })("the embedded server's append-only file", (it) => {
  it.scoped("is rewritten once its tail passes the budget, and not before", () =>
    Effect.gen(function*() {
      const dir = yield* tempDataDir()
      const { password, socketPath } = yield* ensureEmbeddedServer.pipe(inDataDir(dir))
      const persistence = sendCommands(socketPath, password, [["INFO", "persistence"]]).pipe(
        Effect.map(([info]) => ({
          tail: Number(Option.getOrThrow(infoField(info, "aof_current_size"))) -
            Number(Option.getOrThrow(infoField(info, "aof_base_size"))),
          rewriting: Option.getOrThrow(infoField(info, "aof_rewrite_in_progress")) !== "0" ||
            Option.getOrThrow(infoField(info, "aof_rewrite_scheduled")) !== "0"
        }))
      )
      const budget = 64 * 1024
      // Let any rewrite the start scheduled end first.
      yield* persistence.pipe(Effect.repeat({ until: (p) => !p.rewriting, schedule: Schedule.spaced("50 millis") }))
      expect(yield* rewriteLongTail(socketPath, password, budget)).toBe(false)
      const value = "v".repeat(1024)
      yield* sendCommands(socketPath, password, Array.from({ length: 100 }, (_, i) => ["SET", `k${i}`, value]))
      expect((yield* persistence).tail).toBeGreaterThan(budget)
      expect(yield* rewriteLongTail(socketPath, password, budget)).toBe(true)
      yield* persistence.pipe(
        Effect.repeat({ until: (p) => !p.rewriting, schedule: Schedule.spaced("50 millis") }),
        Effect.timeout("20 seconds")
      )
      expect((yield* persistence).tail).toBeLessThan(budget)
      const [kept] = yield* sendCommands(socketPath, password, [["GET", "k99"]])
      expect(kept).toBe(value)
      const status = yield* embeddedStatus.pipe(inDataDir(dir))
      expect([status.running, status.loading]).toEqual([true, false])
    }))
})
