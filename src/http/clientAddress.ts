import type { IncomingMessage } from "node:http"
import { BlockList, isIP } from "node:net"

/**
 * The proxies whose X-Forwarded-For is believed (RELAY_HTTP_TRUSTED_PROXIES): addresses or CIDR
 * ranges, IPv4 or IPv6. An entry that is neither is refused when the settings are read.
 */
export const trustedProxies = (entries: ReadonlyArray<string>): BlockList => {
  const list = new BlockList()
  for (const entry of entries) {
    const [address, bits] = entry.split("/")
    const family = isIP(address ?? "") === 6 ? "ipv6" : "ipv4"
    if (bits === undefined) list.addAddress(address!, family)
    else list.addSubnet(address!, Number(bits), family)
  }
  return list
}

/** Whether `entry` is an address or a CIDR range that trustedProxies can hold. */
export const isProxyEntry = (entry: string) => {
  const [address, bits, extra] = entry.split("/")
  const family = isIP(address ?? "")
  if (family === 0 || extra !== undefined) return false
  if (bits === undefined) return true
  const n = Number(bits)
  return /^\d{1,3}$/.test(bits) && n <= (family === 4 ? 32 : 128)
}

/** `::ffff:10.0.0.1` is the IPv4 peer 10.0.0.1 on a dual-stack socket. */
const plain = (address: string) =>
  address.startsWith("::ffff:") && isIP(address.slice(7)) === 4
    ? address.slice(7)
    : address

const isTrusted = (proxies: BlockList, address: string) => {
  const family = isIP(address)
  return family !== 0 && proxies.check(address, family === 6 ? "ipv6" : "ipv4")
}

/**
 * The address of the client behind a request. The connection's peer, unless that peer is a trusted
 * proxy: then the X-Forwarded-For entries are read from the right (the one the proxy appended) and
 * the first one not itself a trusted proxy is the client. Entries a client wrote itself sit to the
 * left of its proxy's and are never reached, so a client cannot choose its own address. A malformed
 * entry stops the walk at the proxy that passed it on.
 */
export const clientAddress = (req: IncomingMessage, proxies: BlockList): string => {
  let address = plain(req.socket.remoteAddress ?? "unknown")
  if (!isTrusted(proxies, address)) return address
  const header = req.headers["x-forwarded-for"]
  const hops = (Array.isArray(header) ? header.join(",") : header ?? "").split(",").map((s) => s.trim())
  for (let i = hops.length - 1; i >= 0 && isTrusted(proxies, address); i--) {
    const hop = plain(hops[i]!)
    if (isIP(hop) === 0) break
    address = hop
  }
  return address
}

/**
 * The key a per-address limit counts under: the address itself for IPv4, its /64 for IPv6 (one
 * machine is usually given a whole /64, so counting single addresses would let it count as many).
 */
export const addressKey = (address: string) => {
  if (isIP(address) !== 6) return address
  const expanded = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const groups = expandIpv6(expanded)
  return `${groups.slice(0, 4).join(":")}::/64`
}

const expandIpv6 = (address: string): Array<string> => {
  const [head = "", tail] = address.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const fill = Array.from({ length: Math.max(0, 8 - left.length - right.length) }, () => "0")
  return [...left, ...(tail === undefined ? [] : fill), ...right]
}
