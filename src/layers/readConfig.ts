import { type Config, Effect } from "effect"
import { Settings } from "../services/Settings.js"

/** Reads a setting the way Settings were read (the environment, then the package's .env). */
export const readConfig = <A>(config: Config.Config<A>) =>
  Effect.flatMap(
    Settings,
    ({ configProvider }) => configProvider === undefined ? config : Effect.withConfigProvider(config, configProvider)
  )
