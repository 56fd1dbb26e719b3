import { Config } from "effect"
import { address } from "./SentinelEndpoint.js"

/**
 * FALKORDB_CLUSTER_NODES=host:port,host:port (blank: no cluster): some nodes of a Valkey cluster,
 * from which the client learns the rest and which shard owns each slot. The nodes' password is
 * Settings' (FALKORDB_PASSWORD).
 */
export const clusterNodesConfig = Config.string("FALKORDB_CLUSTER_NODES").pipe(
  Config.withDefault(""),
  Config.validate({
    message: "FALKORDB_CLUSTER_NODES must be a comma-separated list of host:port",
    validation: (nodes) => nodes.trim() === "" || nodes.split(",").every((a) => address(a) !== null)
  }),
  Config.map((nodes) => nodes.trim() === "" ? [] : nodes.split(",").map((a) => address(a)!))
)
