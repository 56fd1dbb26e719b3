import type { IncomingMessage, Server as NodeServer, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/** Connections that carried a request with a valid token (keyed weakly: a closed one is forgotten). */
const trusted = new WeakSet<Socket>()

/** The request's token was good: its connection is never closed to make room. */
export const markAuthenticated = (req: IncomingMessage) => void trusted.add(req.socket)

/** A connection that has not yet delivered a request's headers. */
interface Pending {
  readonly socket: Socket
  readonly peer: string
}

/**
 * Keeps clients that open connections and trickle header bytes from holding every slot. Node's own
 * `maxConnections` refuses the newest connection at the cap, which is the valid client's; here:
 * - a peer address may have at most `maxPendingPerPeer` connections still sending headers; one more
 *   closes that peer's oldest such connection (behind a proxy all clients are one peer, so the
 *   newest, a client that sends its headers at once, is the one worth keeping);
 * - at `maxConnections` a new connection closes the oldest connection, of any peer, still sending
 *   headers; one that has sent its headers (and so was, or is being, authenticated) is never
 *   closed for this. With none to close the new connection is refused.
 * A kept-alive connection that answered no authenticated request is back to "sending headers" once its
 * response is out (a client cannot earn a safe slot with one refused request); one whose request
 * carried a valid token (`authenticated`) stays safe. How long headers may take is Node's
 * `headersTimeout` (listen.ts).
 */
export const guardConnections = (
  server: NodeServer,
  limits: { readonly maxConnections: number; readonly maxPendingPerPeer: number }
) => {
  const open = new Set<Socket>()
  // Insertion order is arrival order: the first entry is the oldest.
  const pending = new Map<Socket, Pending>()

  const oldestPending = (peer?: string) => {
    for (const entry of pending.values()) if (peer === undefined || entry.peer === peer) return entry
    return undefined
  }
  const evict = (entry: Pending) => {
    pending.delete(entry.socket)
    entry.socket.destroy()
  }

  server.on("connection", (socket: Socket) => {
    const peer = socket.remoteAddress ?? "unknown"
    if (open.size >= limits.maxConnections) {
      const oldest = oldestPending()
      if (oldest === undefined) return void socket.destroy()
      evict(oldest)
    }
    let fromPeer = 0
    for (const entry of pending.values()) if (entry.peer === peer) fromPeer++
    if (fromPeer >= limits.maxPendingPerPeer) evict(oldestPending(peer)!)
    open.add(socket)
    pending.set(socket, { socket, peer })
    socket.once("close", () => {
      open.delete(socket)
      pending.delete(socket)
    })
  })
  // Node emits `request` once the headers are in.
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket
    const entry = pending.get(socket)
    pending.delete(socket)
    res.once("finish", () => {
      if (entry !== undefined && !trusted.has(socket) && open.has(socket) && !socket.destroyed) {
        pending.set(socket, entry)
      }
    })
  })

  return { open: () => open.size, pending: () => pending.size }
}
