import { Option } from "effect"

/** The FalkorDB ("graph") module's version in a MODULE LIST reply, e.g. "4.16.3". */
export const moduleVersion = (modules: unknown): Option.Option<string> => {
  if (!Array.isArray(modules)) return Option.none()
  for (const entry of modules as ReadonlyArray<unknown>) {
    if (!Array.isArray(entry)) continue
    const fields = entry as ReadonlyArray<unknown>
    const get = (key: string) => fields[fields.indexOf(key) + 1]
    const ver = get("ver")
    if (get("name") === "graph" && typeof ver === "number") {
      return Option.some(`${Math.floor(ver / 10000)}.${Math.floor(ver / 100) % 100}.${ver % 100}`)
    }
  }
  return Option.none()
}

/** One `key:value` line of an INFO reply. */
export const infoField = (info: unknown, key: string): Option.Option<string> =>
  typeof info === "string"
    ? Option.fromNullable(new RegExp(`^${key}:(.*)$`, "m").exec(info)?.[1]?.trim())
    : Option.none()

/** The server's name and version in an INFO server reply, e.g. "valkey 8.0.1". */
export const serverVersion = (info: unknown): Option.Option<string> =>
  infoField(info, "valkey_version").pipe(
    Option.map((v) => `valkey ${v}`),
    Option.orElse(() => infoField(info, "redis_version").pipe(Option.map((v) => `redis ${v}`)))
  )
