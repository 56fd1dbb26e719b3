/**
 * The files of one embedded server, all inside its data directory, except the
 * unix socket when the data directory's path is too long for one: sun_path is
 * 104 bytes on macOS and 108 on Linux, so a socket path of 100+ bytes moves to
 * `<tmpdir>/relay-<uid>-<hash of the data dir>/falkordb.sock` (a 0700 directory
 * owned by the user; the hash keeps two data directories apart).
 */
import { Path } from "@effect/platform"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import * as Os from "node:os"
import type { EmbeddedLayout, EmbeddedServerError } from "../../services/EmbeddedServer.js"
import { resolveDataDir } from "./dataDir.js"

export type { EmbeddedLayout }

/** Longest socket path we accept (bytes); leaves room under macOS's 104. */
export const MAX_SOCKET_PATH = 100

export const layoutFor = Effect.fn("relay/embedded/layoutFor")(function*(dataDir: string) {
  const path = yield* Path.Path
  const inData = path.join(dataDir, "falkordb.sock")
  const short = Buffer.byteLength(inData) < MAX_SOCKET_PATH
  const socketDir = short ? dataDir : yield* Effect.sync(() => {
    const hash = Crypto.createHash("sha256").update(dataDir).digest("hex").slice(0, 12)
    const uid = typeof process.getuid === "function" ? process.getuid() : 0
    // Not os.tmpdir(): on macOS $TMPDIR is itself long.
    const base = process.platform === "win32" ? Os.tmpdir() : "/tmp"
    return path.join(base, `relay-${uid}-${hash}`)
  })
  return {
    dataDir,
    socketDir,
    socketPath: path.join(socketDir, "falkordb.sock"),
    pidFile: path.join(dataDir, "falkordb.pid"),
    logFile: path.join(dataDir, "falkordb.log"),
    configFile: path.join(dataDir, "falkordb.conf"),
    passwordFile: path.join(dataDir, "password"),
    lockFile: path.join(dataDir, "start.lock")
  }
})

/** The layout of the data dir this process uses (RELAY_DATA_DIR or the platform default). */
export const currentLayout: Effect.Effect<EmbeddedLayout, EmbeddedServerError, Path.Path> = resolveDataDir.pipe(
  Effect.flatMap(layoutFor)
)
