import { type ChildProcess, spawn } from "node:child_process"
import { falkordbEnv } from "./mcpClient.js"

/**
 * `npm run studio`'s own process (dist/cli/studio.js) on a graph of this run's database, on a free
 * port: its login URL (the first stdout line) and the process, to kill when done.
 */
export const startStudio = (graph: string) =>
  new Promise<{ readonly login: string; readonly process: ChildProcess }>((resolve, reject) => {
    const studio = spawn(process.execPath, ["dist/cli/studio.js", "--port", "0"], {
      env: falkordbEnv({ RELAY_GRAPH: graph }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    studio.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("\n")) resolve({ login: out.split("\n")[0]!.trim(), process: studio })
    })
    studio.once("exit", (code) => reject(new Error(`studio exited ${code}`)))
  })

export const chromiumPath = process.env.RELAY_TEST_CHROMIUM ?? "/usr/bin/chromium"
