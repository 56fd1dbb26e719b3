import type { IncomingMessage, Server as NodeServer, ServerResponse } from "node:http"
import type { Socket } from "node:net"

export interface ConnectionLimits {
  readonly maxConnections: number
  readonly maxPendingPerPeer: number
  readonly maxConnectionsPerPeer: number
  readonly maxConnectionsPerToken: number
}

/** One open connection, in arrival order among the others. */
interface Connection {
  readonly socket: Socket
  readonly peer: string
  /** The token whose valid request it carried last; null until one did. */
  token: string | null
  /** Requests on it not yet answered: a connection with none is idle. */
  busy: number
}

/**
 * The address a connection counts against: the socket's own, so behind a reverse proxy every client
 * is the proxy's address and the per-address caps count everyone together. The seam for a trusted
 * proxy's client address (src/http/clientAddress.ts, issue 39) is this one function.
 */
const peerOf = (socket: Socket) => socket.remoteAddress ?? "unknown"

/** The guard of each open connection, so a request's handler can reach it (keyed weakly: a closed one is forgotten). */
const guardOf = new WeakMap<Socket, (token: string) => boolean>()

/**
 * The request's token was good: its connection now counts against that token and is not closed to
 * make room while it has a request in flight. False when the token already holds its cap of
 * connections, every one of them busy: the caller answers 429 and closes this one.
 */
export const markAuthenticated = (req: IncomingMessage, token: string): boolean =>
  guardOf.get(req.socket)?.(token) ?? true

/**
 * Keeps a share of the server's connections for new clients. Node's own `maxConnections` refuses the
 * newest connection at the cap, which is the valid client's; here:
 * - a peer address may have at most `maxPendingPerPeer` connections still sending headers; one more
 *   closes that peer's oldest such connection (behind a proxy all clients are one peer, so the
 *   newest, a client that sends its headers at once, is the one worth keeping);
 * - a peer may have at most `maxConnectionsPerPeer` open, and a token at most
 *   `maxConnectionsPerToken`; one more closes that peer's (token's) oldest idle connection, or is
 *   refused when all are busy;
 * - at `maxConnections` a new connection closes the oldest connection still sending headers of the
 *   peer holding the most connections, else the oldest idle one of the token holding the most. One
 *   with a request in flight is never closed for room. With none to close the new one is refused.
 * Before, a connection that once carried a valid token was never closed: 520 kept-alive sockets of
 * one token sending to a bogus session held every slot, and a client of another workspace got
 * ECONNRESET on each new connection (issue 40).
 * A kept-alive connection that answered no authenticated request is back to "sending headers" once its
 * response is out (a client cannot earn a safe slot with one refused request). How long headers may
 * take is Node's `headersTimeout` (listen.ts).
 */
export const guardConnections = (server: NodeServer, limits: ConnectionLimits) => {
  // Insertion order is arrival order: the first entry of each is the oldest.
  const open = new Map<Socket, Connection>()
  const pending = new Map<Socket, Connection>()
  const byPeer = new Map<string, Set<Connection>>()
  const byToken = new Map<string, Set<Connection>>()

  const join = <K>(index: Map<K, Set<Connection>>, key: K, c: Connection) => {
    const set = index.get(key)
    if (set === undefined) index.set(key, new Set([c]))
    else set.add(c)
  }
  const leave = <K>(index: Map<K, Set<Connection>>, key: K, c: Connection) => {
    const set = index.get(key)
    set?.delete(c)
    if (set?.size === 0) index.delete(key)
  }
  const idle = (c: Connection) => c.busy === 0
  const first = (of: Iterable<Connection>, which: (c: Connection) => boolean) => {
    for (const c of of) if (which(c)) return c
    return undefined
  }
  /** The oldest connection that `which` allows of the peer (token) holding the most connections. */
  const ofLargest = <K>(index: Map<K, Set<Connection>>, which: (c: Connection) => boolean) => {
    for (const set of [...index.values()].sort((a, b) => b.size - a.size)) {
      const found = first(set, which)
      if (found !== undefined) return found
    }
    return undefined
  }
  const isPending = (c: Connection) => pending.has(c.socket)
  const close = (c: Connection) => {
    forget(c)
    c.socket.destroy()
  }
  const forget = (c: Connection) => {
    if (!open.delete(c.socket)) return
    pending.delete(c.socket)
    leave(byPeer, c.peer, c)
    if (c.token !== null) leave(byToken, c.token, c)
  }

  server.on("connection", (socket: Socket) => {
    const peer = peerOf(socket)
    const fromPeer = byPeer.get(peer)
    if (fromPeer !== undefined && fromPeer.size >= limits.maxConnectionsPerPeer) {
      const room = first(pending.values(), (c) => c.peer === peer) ?? first(fromPeer, idle)
      if (room === undefined) return void socket.destroy()
      close(room)
    }
    if (open.size >= limits.maxConnections) {
      const room = ofLargest(byPeer, isPending) ?? ofLargest(byToken, idle)
      if (room === undefined) return void socket.destroy()
      close(room)
    }
    const stillSending = [...pending.values()].filter((c) => c.peer === peer)
    if (stillSending.length >= limits.maxPendingPerPeer) close(stillSending[0]!)
    const c: Connection = { socket, peer, token: null, busy: 0 }
    open.set(socket, c)
    pending.set(socket, c)
    join(byPeer, peer, c)
    guardOf.set(socket, (token) => {
      if (c.token === token) return true
      const held = byToken.get(token)
      if (held !== undefined && held.size >= limits.maxConnectionsPerToken) {
        const room = first(held, (other) => idle(other) && other !== c)
        if (room === undefined) return false
        close(room)
      }
      if (c.token !== null) leave(byToken, c.token, c)
      c.token = token
      join(byToken, token, c)
      pending.delete(socket)
      return true
    })
    socket.once("close", () => forget(c))
  })
  // Node emits `request` once the headers are in.
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const c = open.get(req.socket)
    if (c === undefined) return
    pending.delete(req.socket)
    c.busy++
    res.once("close", () => {
      c.busy--
      if (c.token === null && open.has(c.socket) && !c.socket.destroyed) pending.set(c.socket, c)
    })
  })

  return { open: () => open.size, pending: () => pending.size }
}
