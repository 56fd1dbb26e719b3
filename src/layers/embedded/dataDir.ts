/**
 * Where the embedded server keeps its data: `RELAY_DATA_DIR` if set, else the
 * per-user data directory of the platform (`$XDG_DATA_HOME/relay`,
 * `~/.local/share/relay`, or `~/Library/Application Support/relay` on macOS).
 */
import { Path } from "@effect/platform"
import { Config, Effect, Option } from "effect"
import * as Os from "node:os"
import { EmbeddedServerError } from "./EmbeddedServerError.js"

const optional = (name: string) => Config.option(Config.nonEmptyString(name))

export const resolveDataDir: Effect.Effect<string, EmbeddedServerError, Path.Path> = Effect.gen(function*() {
  const path = yield* Path.Path
  const settings = yield* Config.all({
    explicit: optional("RELAY_DATA_DIR"),
    xdg: optional("XDG_DATA_HOME"),
    home: optional("HOME")
  }).pipe(
    Effect.mapError(() =>
      new EmbeddedServerError({ message: "RELAY_DATA_DIR could not be read from the environment." })
    )
  )
  if (Option.isSome(settings.explicit)) return path.resolve(settings.explicit.value)
  const home = Option.getOrElse(settings.home, () => Os.homedir())
  if (process.platform === "darwin") return path.join(home, "Library", "Application Support", "relay")
  return Option.match(settings.xdg, {
    onSome: (xdg) => path.join(path.resolve(xdg), "relay"),
    onNone: () => path.join(home, ".local", "share", "relay")
  })
}).pipe(Effect.withSpan("relay/embedded/resolveDataDir"))
