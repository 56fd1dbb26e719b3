import { createCluster } from "@redis/client"
import { FalkorDB, type FalkorDBOptions, Graph } from "falkordb"
import falkordbCommands from "falkordb/dist/src/commands/index.js"
import type { Address } from "../../services/Settings.js"
import { isClusterChange, isConnectionError } from "./driverErrors.js"
import { checkAcked, confirmReplicas } from "./replication.js"

/**
 * FalkorDB's command set for @redis/client (a CommonJS module's `exports.default`): Node hands an
 * ES module the whole `exports`, a bundler or vitest may hand it `default` already.
 */
const commandsExports = falkordbCommands as unknown as { readonly default?: typeof falkordbCommands.default }
const graphCommands = commandsExports.default ?? (falkordbCommands as unknown as typeof falkordbCommands.default)

/** One of FalkorDB's command modules, in @redis/client's older form that it still exports. */
interface GraphCommand {
  readonly transformArguments: (...args: Array<unknown>) => Array<string>
  readonly transformReply: (reply: never) => unknown
}

/**
 * What Relay needs of one pooled connection to FalkorDB, whether that is one server or a Valkey
 * cluster (every graph a key, routed to the shard that owns its slot).
 */
export interface GraphClient {
  readonly selectGraph: (name: string) => Graph
  readonly configGet: (key: string) => Promise<unknown>
  /** A command for the server itself (INFO, MODULE LIST): on a cluster, any one node. */
  readonly command: (args: Array<string>) => Promise<unknown>
  /**
   * WAIT for `min` replicas on the connection that took `graph`'s last write: WAIT counts replicas
   * that reached that connection's writes, so on any other it would confirm nothing. On a cluster
   * that is the connection to the primary that owns the graph's slot.
   */
  readonly confirmWrite: (graph: string, min: number, timeoutMillis: number) => Promise<void>
  readonly isOpen: () => boolean
  /** How many primaries serve the data: 1 for one server, a cluster's shards. */
  readonly primaries: () => number
  readonly close: () => Promise<void>
}

/** One server, through the `falkordb` client as it connects. */
export const singleClient = async (options: FalkorDBOptions): Promise<GraphClient> => {
  const db = await FalkorDB.connect(options)
  // At once, in the same tick: an 'error' event with no listener would end the process. The failure
  // itself surfaces on the next query, which makes the connection again.
  db.on("error", () => {})
  const client = await db.connection.catch(async (e: unknown) => {
    await db.close().catch(() => undefined)
    throw e
  })
  return {
    selectGraph: (name) => db.selectGraph(name),
    configGet: (key) => db.configGet(key),
    command: (args) => client.sendCommand(args),
    confirmWrite: (_graph, min, timeoutMillis) => confirmReplicas(client, min, timeoutMillis),
    isOpen: () => client.isReady,
    primaries: () => 1,
    close: () => db.close()
  }
}

/**
 * A Valkey cluster through @redis/client's cluster client with FalkorDB's commands: every graph
 * command is routed by its key (the graph's name) to the primary that owns its slot, and follows a
 * MOVED or ASK there. The `falkordb` client makes the same client when it finds `redis_mode:cluster`
 * but keeps it private, so a WAIT could not be sent to the primary that took a write; this one is
 * Relay's. Nodes are connected on first use (`minimizeConnections`): a dead primary keeps no
 * connection from being made for the shards that are up.
 */
export const clusterClient = async (
  nodes: ReadonlyArray<Address>,
  options: FalkorDBOptions
): Promise<GraphClient> => {
  const cluster = createCluster({
    rootNodes: nodes.map((n) => ({ socket: { host: n.host, port: n.port } })),
    defaults: {
      ...(options.password === undefined ? {} : { password: options.password }),
      ...(options.username === undefined ? {} : { username: options.username }),
      socket: { ...options.socket, host: undefined, port: undefined, path: undefined } as never,
      disableOfflineQueue: true
    },
    minimizeConnections: true
  })
  // As for one server: an 'error' event with no listener would end the process.
  cluster.on("error", () => {})
  await cluster.connect()
  // Routed by the graph's name: FalkorDB's command modules push the graph as a plain argument, not
  // as a key, so through `cluster.falkordb` every command went to a random node and followed MOVED
  // until it was lucky (the `falkordb` client allows 100,000 redirections for that).
  const commands = graphCommands as unknown as Record<string, GraphCommand>
  // Set once the client could not read the cluster's slots again: the pool must not lend it again
  // (isOpen), and a new one reads them afresh.
  let lostShard = false
  type NodeClient = NonNullable<(typeof cluster.masters)[number]["client"]>
  /**
   * After a connection error, the client forgets every node whose socket closed and reads the slots
   * again, so a later command to that shard connects to whichever node then serves it (a promoted
   * replica). Left alone, the client would hand out the closed socket until a MOVED came, which a
   * dead node never sends, and its own refresh of the slots throws on a closed socket. The client
   * goes on serving the shards that are up: one shard's failover costs the others no connection.
   */
  const forgetLostNodes = async () => {
    let answering: NodeClient | undefined
    let closed: NodeClient | undefined
    for (const node of cluster.nodeByAddress.values()) {
      if (node.client === undefined || node.connectPromise !== undefined) continue
      if (node.client.isReady) answering ??= node.client
      else {
        closed ??= node.client
        // One still trying to reconnect (a caller's own reconnectStrategy) would go on for good.
        if (node.client.isOpen) node.client.destroy()
        delete node.client
      }
    }
    const start = answering ?? closed
    if (start !== undefined) await cluster._slots.rediscover(start).catch(() => (lostShard = true))
  }
  const keyed = async <A>(run: () => Promise<A>): Promise<A> => {
    try {
      return await run()
    } catch (e) {
      if (isConnectionError(e) || isClusterChange(e)) await forgetLostNodes()
      throw e
    }
  }
  const send = (name: string, readOnly: boolean) => (graph: string, ...args: Array<unknown>) => {
    const command = commands[name]!
    return keyed(async () =>
      command.transformReply(await cluster.sendCommand(graph, readOnly, command.transformArguments(graph, ...args)))
    )
  }
  /**
   * A command for no key (a setting, INFO): the first primary that answers. The cluster client
   * would pick a random node, which during a failover can be the dead one, and fail the whole new
   * connection with it.
   */
  const anyPrimary = async (args: Array<string>): Promise<unknown> => {
    let failure: unknown = new Error("Cluster closed")
    for (const node of cluster.masters) {
      try {
        return await (await cluster.nodeClient(node)).sendCommand(args)
      } catch (e) {
        if (!isConnectionError(e)) throw e
        failure = e
      }
    }
    throw failure
  }
  const forGraphs = {
    // The compact reply format, which Graph parses (the `falkordb` client's own default).
    query: (graph: string, query: string, options: unknown, compact = true) =>
      send("QUERY", false)(graph, query, options, compact),
    roQuery: (graph: string, query: string, options: unknown, compact = true) =>
      send("RO_QUERY", true)(graph, query, options, compact),
    delete: (graph: string) => send("DELETE", false)(graph).then(() => undefined),
    constraintCreate: (graph: string, ...args: Array<unknown>) =>
      send("CONSTRAINT_CREATE", false)(graph, ...args).then(() => undefined),
    constraintDrop: (graph: string, ...args: Array<unknown>) =>
      send("CONSTRAINT_DROP", false)(graph, ...args).then(() => undefined),
    // Two keys, which a cluster serves together only when they share a slot (`npm run copy` refuses on a cluster).
    copy: (graph: string, target: string) => send("COPY", false)(graph, target)
  }
  return {
    selectGraph: (name) => new Graph(forGraphs as never, name),
    configGet: (key) => anyPrimary(["GRAPH.CONFIG", "GET", key]),
    command: anyPrimary,
    confirmWrite: async (graph, min, timeoutMillis) => {
      const acked = Number(
        await keyed(() => cluster.sendCommand(graph, false, ["WAIT", String(min), String(timeoutMillis)]))
      )
      checkAcked(acked, min, timeoutMillis)
    },
    isOpen: () => cluster.isOpen && !lostShard,
    primaries: () => cluster.masters.length,
    close: () => cluster.close().catch(() => undefined)
  }
}
