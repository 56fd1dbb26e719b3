import { load } from "js-yaml"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

/**
 * The compose files run the FalkorDB the tests run (the version in the module package's name,
 * `@falkordblite/linux-x64@<server>-falkordb.<version>`), never a moving tag such as `latest`,
 * which is another engine generation now. Each cluster node announces its own address and port:
 * a client sent elsewhere by a MOVED goes to the address the node announced.
 */
const root = new URL("../../", import.meta.url)
const read = (file: string) => readFileSync(new URL(file, root), "utf8")

interface Service {
  readonly image?: string
  readonly environment?: Record<string, string>
  readonly networks?: Record<string, { readonly ipv4_address?: string }> | ReadonlyArray<string>
}
const services = (file: string) => Object.entries((load(read(file)) as { services: Record<string, Service> }).services)

const testedVersion = (() => {
  const pkg = JSON.parse(read("package.json")) as { optionalDependencies: Record<string, string> }
  return /falkordb\.(\d+\.\d+\.\d+)$/.exec(pkg.optionalDependencies["@falkordblite/linux-x64"] ?? "")?.[1]
})()

const flag = (args: string, name: string) => new RegExp(`--${name}\\s+(\\S+)`).exec(args)?.[1]

describe("compose files", () => {
  it.each(["docker-compose.yml", "docker-compose.cluster.yml"])(
    "%s pins every image to the FalkorDB the tests run",
    (file) => {
      expect(testedVersion).toMatch(/^\d+\.\d+\.\d+$/)
      const images = services(file).map(([name, s]) => [name, s.image])
      expect(images.length).toBeGreaterThan(0)
      for (const [name, image] of images) expect([name, image]).toEqual([name, `falkordb/falkordb:v${testedVersion}`])
    }
  )

  it("the cluster has 3 primaries' worth of 9 nodes, each announcing its own address and port", () => {
    const nodes = services("docker-compose.cluster.yml").filter(([, s]) =>
      /--cluster-enabled yes/.test(s.environment?.REDIS_ARGS ?? "")
    )
    expect(nodes).toHaveLength(9)
    const announced = nodes.map(([name, s]) => {
      const args = s.environment!.REDIS_ARGS!
      const networks = s.networks as Record<string, { readonly ipv4_address?: string }>
      const own = Object.values(networks)[0]?.ipv4_address
      expect([name, flag(args, "cluster-announce-ip")]).toEqual([name, own])
      expect([name, flag(args, "cluster-announce-port")]).toEqual([name, flag(args, "port")])
      expect(flag(args, "cluster-node-timeout")).toBe("2000")
      return `${own}:${flag(args, "port")}`
    })
    expect(new Set(announced).size).toBe(9)
    expect(read("docker-compose.cluster.yml")).toMatch(/--cluster create[^\n]*--cluster-replicas 2/)
  })
})
