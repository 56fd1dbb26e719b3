import { Config } from "effect"

/** A whole-number setting above 0, `fallback` when unset; any other value is refused by its name. */
export const positiveSetting = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a positive whole number`, validation: (n) => n > 0 })
  )
