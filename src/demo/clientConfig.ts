/**
 * The exact MCP client configuration for this install: Claude Desktop's claude_desktop_config.json
 * and Cursor's ~/.cursor/mcp.json, with the absolute paths of node and dist/server.js. Never holds
 * a password: database settings belong in the package's .env, which the server reads itself.
 */
import * as Path from "node:path"
import type { Style } from "./style.js"

export interface InstallInfo {
  /** Absolute path of the node binary running now. */
  readonly nodePath: string
  /** Absolute path of dist/server.js. */
  readonly serverPath: string
  /** The package folder, where the server looks for .env. */
  readonly packageDir: string
  readonly platform: NodeJS.Platform
  readonly home: string
  /** %APPDATA% on Windows. */
  readonly appData: string | undefined
  /** The process environment, to carry over the non-secret settings a client would not pass. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** Settings that are not secrets and that a client started from a desktop icon would not inherit. */
const carried = ["RELAY_GRAPH", "RELAY_DATA_DIR", "RELAY_RATE_LIMIT"] as const
const secretSettings = ["FALKORDB_URL", "FALKORDB_PASSWORD", "FALKORDB_HOST", "FALKORDB_PORT"] as const

export const claudeDesktopConfigPath = (info: InstallInfo): string => {
  switch (info.platform) {
    case "darwin":
      return Path.posix.join(info.home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
    case "win32":
      return Path.win32.join(
        info.appData ?? Path.win32.join(info.home, "AppData", "Roaming"),
        "Claude",
        "claude_desktop_config.json"
      )
    default:
      return Path.posix.join(info.home, ".config", "Claude", "claude_desktop_config.json")
  }
}

export const cursorConfigPath = (info: InstallInfo): string =>
  (info.platform === "win32" ? Path.win32 : Path.posix).join(info.home, ".cursor", "mcp.json")

/** The `mcpServers` document both clients read. */
export const mcpServersJson = (info: InstallInfo): string => {
  const env = Object.fromEntries(
    carried.flatMap((k) => {
      const v = info.env[k]
      return v === undefined || v === "" ? [] : [[k, v] as const]
    })
  )
  const relay = {
    command: info.nodePath,
    args: [info.serverPath],
    ...(Object.keys(env).length === 0 ? {} : { env })
  }
  return JSON.stringify({ mcpServers: { relay } }, null, 2)
}

export const clientConfigLines = (info: InstallInfo, style: Style): Array<string> => {
  const json = mcpServersJson(info).split("\n")
  const fromShell = secretSettings.filter((k) => (info.env[k] ?? "") !== "")
  return [
    style.bold("Connect your assistants to Relay"),
    "",
    `Claude Desktop: ${style.cyan(claudeDesktopConfigPath(info))}`,
    ...json,
    "",
    `Cursor: ${style.cyan(cursorConfigPath(info))}`,
    ...json,
    "",
    "If the file already lists other servers, add the \"relay\" entry to its mcpServers, then restart the app.",
    `The server reads FALKORDB_* and RELAY_GRAPH from ${Path.join(info.packageDir, ".env")} and, with no database`,
    "configured, starts or joins the embedded FalkorDB itself, so every assistant shares one memory.",
    ...(fromShell.length === 0 ? [] : [
      style.yellow(
        `${fromShell.join(", ")} ${fromShell.length === 1 ? "is" : "are"} set in this shell only: put ${
          fromShell.length === 1 ? "it" : "them"
        } in that .env so the server finds ${fromShell.length === 1 ? "it" : "them"} when a client starts it.`
      )
    ])
  ]
}
