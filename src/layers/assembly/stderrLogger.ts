import { Logger } from "effect"

/**
 * Effect's log lines on stderr, in logfmt: stdout is the MCP protocol for the server and the
 * command's own output for a CLI.
 */
export const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))
