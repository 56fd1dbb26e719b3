import { createCluster } from "@redis/client"
import { FalkorDB, type FalkorDBOptions, Graph } from "falkordb"
import falkordbCommands from "falkordb/dist/src/commands/index.js"
import type { Address } from "../../services/Settings.js"
import { checkAcked, confirmReplicas } from "./replication.js"

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
    modules: { falkordb: falkordbCommands.default },
    minimizeConnections: true
  })
  // As for one server: an 'error' event with no listener would end the process.
  cluster.on("error", () => {})
  await cluster.connect()
  const graphCalls = cluster.falkordb as unknown as Record<string, (...args: Array<unknown>) => Promise<unknown>>
  const call = (name: string) => (...args: Array<unknown>) => graphCalls[name]!(...args)
  const forGraphs = {
    // The compact reply format, which Graph parses (the `falkordb` client's own default).
    query: (graph: string, query: string, options: unknown, compact = true) =>
      call("query")(graph, query, options, compact),
    roQuery: (graph: string, query: string, options: unknown, compact = true) =>
      call("roQuery")(graph, query, options, compact),
    delete: (graph: string) => call("delete")(graph).then(() => undefined),
    copy: call("copy"),
    explain: call("explain"),
    profile: call("profile"),
    memoryUsage: call("memoryUsage"),
    slowLog: call("slowLog"),
    constraintCreate: (...args: Array<unknown>) => call("constraintCreate")(...args).then(() => undefined),
    constraintDrop: (...args: Array<unknown>) => call("constraintDrop")(...args).then(() => undefined)
  }
  return {
    selectGraph: (name) => new Graph(forGraphs as never, name),
    configGet: (key) => cluster.sendCommand(undefined, true, ["GRAPH.CONFIG", "GET", key]),
    command: (args) => cluster.sendCommand(undefined, true, args),
    confirmWrite: async (graph, min, timeoutMillis) => {
      const acked = Number(await cluster.sendCommand(graph, false, ["WAIT", String(min), String(timeoutMillis)]))
      checkAcked(acked, min, timeoutMillis)
    },
    isOpen: () => cluster.isOpen,
    close: () => cluster.close().catch(() => undefined)
  }
}
