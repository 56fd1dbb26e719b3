import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Logger, Redacted } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { configFrom, readSettings, SettingsFromConfig } from "../../src/layers/assembly/SettingsLive.js"
import { EmbeddedServerLive } from "../../src/layers/embedded/EmbeddedServerLive.js"
import { EmbeddedServer } from "../../src/services/EmbeddedServer.js"
import { Settings } from "../../src/services/Settings.js"

const provider = (entries: Record<string, string>) => ConfigProvider.fromMap(new Map(Object.entries(entries)))

/** The warnings reading the settings logs. */
const warningsOf = (env: Record<string, string>, file: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(message))
    })
    yield* readSettings(provider(env), provider(file)).pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, logger))
    )
    return warnings
  })

describe("settings from the environment and .env", () => {
  it.effect("nothing configured: the embedded server, graph relay, 120 calls a minute", () =>
    Effect.gen(function*() {
      const s = yield* readSettings(provider({}), provider({}))
      expect(s.database._tag).toBe("Embedded")
      expect([s.graph, s.rateLimitPerMinute]).toEqual(["relay", 120])
    }))

  it.effect(".env alone configures the database and the rest", () =>
    Effect.gen(function*() {
      const s = yield* readSettings(
        provider({}),
        provider({
          FALKORDB_HOST: "db.local",
          FALKORDB_PORT: "6380",
          FALKORDB_PASSWORD: "pw",
          RELAY_GRAPH: "team",
          RELAY_RATE_LIMIT: "30"
        })
      )
      expect(s.database).toMatchObject({ _tag: "HostPort", host: "db.local", port: 6380 })
      expect(s.database._tag === "HostPort" && s.database.password !== null && Redacted.value(s.database.password))
        .toBe("pw")
      expect([s.graph, s.rateLimitPerMinute]).toEqual(["team", 30])
    }))

  it.effect("FALKORDB_CLUSTER_NODES wins over every other database setting; a malformed one is refused", () =>
    Effect.gen(function*() {
      const s = yield* readSettings(
        provider({
          FALKORDB_CLUSTER_NODES: "127.0.0.1:7101, [::1]:7102",
          FALKORDB_SENTINELS: "127.0.0.1:26379",
          FALKORDB_HOST: "db.local"
        }),
        provider({ FALKORDB_PASSWORD: "pw" })
      )
      expect(s.database).toMatchObject({
        _tag: "Cluster",
        nodes: [{ host: "127.0.0.1", port: 7101 }, { host: "::1", port: 7102 }]
      })
      expect(s.database._tag === "Cluster" && s.database.password !== null && Redacted.value(s.database.password))
        .toBe("pw")
      const bad = yield* Effect.flip(readSettings(provider({ FALKORDB_CLUSTER_NODES: "127.0.0.1" }), provider({})))
      expect(String(bad)).toMatch(/FALKORDB_CLUSTER_NODES must be a comma-separated list of host:port/)
    }))

  it.effect("the environment wins: its host beats a URL in .env, which still lends the password", () =>
    Effect.gen(function*() {
      const s = yield* readSettings(
        provider({ FALKORDB_HOST: "127.0.0.1", FALKORDB_PORT: "7000", RELAY_GRAPH: "mine" }),
        provider({ FALKORDB_URL: "falkor://:x@elsewhere:6379", FALKORDB_PASSWORD: "from-file", RELAY_GRAPH: "theirs" })
      )
      expect(s.database).toMatchObject({ _tag: "HostPort", host: "127.0.0.1", port: 7000 })
      expect(s.database._tag === "HostPort" && s.database.password !== null && Redacted.value(s.database.password))
        .toBe("from-file")
      expect(s.graph).toBe("mine")
    }))

  it.effect("a password with no database named is warned about, but not when the sentinels use it", () =>
    Effect.gen(function*() {
      expect(yield* warningsOf({ FALKORDB_PASSWORD: "pw" })).toEqual([
        expect.stringContaining("FALKORDB_PASSWORD is set")
      ])
      expect(yield* warningsOf({ FALKORDB_PASSWORD: "pw", FALKORDB_SENTINELS: "127.0.0.1:26379" })).toEqual([])
      expect(yield* warningsOf({ FALKORDB_SENTINELS: "127.0.0.1:26379" }, { FALKORDB_PASSWORD: "pw" })).toEqual([])
      expect(yield* warningsOf({ FALKORDB_PASSWORD: "pw", FALKORDB_SENTINELS: " " })).toHaveLength(1)
    }))

  it.effect("a URL wins over host and port from the same place; bad values are refused", () =>
    Effect.gen(function*() {
      const s = yield* readSettings(provider({ FALKORDB_URL: "falkor://h:1", FALKORDB_HOST: "other" }), provider({}))
      expect(s.database._tag).toBe("Url")
      const bad = yield* Effect.flip(readSettings(provider({ RELAY_RATE_LIMIT: "0" }), provider({})))
      expect(String(bad)).toContain("RELAY_RATE_LIMIT")
      const graph = yield* Effect.flip(readSettings(provider({ RELAY_GRAPH: "no spaces" }), provider({})))
      expect(String(graph)).toContain("RELAY_GRAPH")
    }))

  it.effect("one read of .env serves Settings and the settings read later (the embedded data dir)", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "relay-dotenv-"))
      const file = join(dir, ".env")
      writeFileSync(file, `RELAY_GRAPH=from_file\nRELAY_DATA_DIR=${join(dir, "data")}\n`)
      const layer = Layer.merge(SettingsFromConfig, EmbeddedServerLive).pipe(Layer.provide(configFrom(file)))
      const [settings, embedded] = yield* Effect.all([Settings, EmbeddedServer]).pipe(Effect.provide(layer))
      // The environment would win; the run sets neither.
      expect(settings.graph).toBe(process.env.RELAY_GRAPH ?? "from_file")
      expect(embedded.layout.dataDir).toBe(process.env.RELAY_DATA_DIR ?? join(dir, "data"))
    }))
})
