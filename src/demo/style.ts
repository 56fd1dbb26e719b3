/** ANSI colour, only when the caller says the terminal wants it (a TTY and no NO_COLOR). */
export interface Style {
  readonly bold: (s: string) => string
  readonly dim: (s: string) => string
  readonly green: (s: string) => string
  readonly red: (s: string) => string
  readonly yellow: (s: string) => string
  readonly cyan: (s: string) => string
}

const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`

const plain = (s: string) => s

export const makeStyle = (colour: boolean): Style =>
  colour
    ? {
      bold: sgr(1, 22),
      dim: sgr(2, 22),
      green: sgr(32, 39),
      red: sgr(31, 39),
      yellow: sgr(33, 39),
      cyan: sgr(36, 39)
    }
    : { bold: plain, dim: plain, green: plain, red: plain, yellow: plain, cyan: plain }

/** Colour by the usual convention: stdout is a terminal and NO_COLOR is unset or empty. */
export const wantsColour = (isTty: boolean, noColor: string | undefined): boolean =>
  isTty && (noColor === undefined || noColor === "")
