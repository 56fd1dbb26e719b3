/**
 * What @effect/platform's router costs a request at Relay's HTTP edge (issue 46, point 3), without
 * the database: one Node server answers a small JSON body posted to it in three ways, called in turn
 * over one kept-alive connection each, in an order that rotates:
 * - `raw`: a node:http handler that reads the body and answers, as src/http/serveHttp.ts does;
 * - `router`: `NodeHttpServer.makeHandler` over an `HttpRouter` whose route reads the body with the
 *   platform (`request.text`) and answers an `HttpServerResponse` (as the studio does, src/studio/);
 * - `handover`: the same router, its route handing the raw request and response to the raw handler
 *   (`NodeHttpServerRequest.toIncomingMessage` / `toServerResponse`), as a route that gives the
 *   MCP SDK's transport its request would, and waiting for the answer to be written.
 *
 *   node --import tsx bench/edgeRouting.ts      (EDGE_BENCH_CALLS=3000 by default)
 */
import { HttpMiddleware, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { type Stats, summarise } from "./sampler.js"

const ways = ["raw", "router", "handover"] as const
type Way = typeof ways[number]

const rawHandler = (req: IncomingMessage, res: ServerResponse) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number }
    const text = JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { ok: true } })
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text)
  })
}

const router = HttpRouter.empty.pipe(
  HttpRouter.post(
    "/router",
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) => req.text).pipe(
      Effect.map((text) => {
        const body = JSON.parse(text) as { id: number }
        return HttpServerResponse.unsafeJson({ jsonrpc: "2.0", id: body.id, result: { ok: true } })
      })
    )
  ),
  HttpRouter.post(
    "/handover",
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) => {
      const res = NodeHttpServerRequest.toServerResponse(req)
      rawHandler(NodeHttpServerRequest.toIncomingMessage(req), res)
      // Answered by the raw handler: the platform writes nothing once the response has ended.
      return Effect.as(
        Effect.async<void>((resume) => void res.once("finish", () => resume(Effect.void))),
        HttpServerResponse.empty()
      )
    })
  )
)

const main = Effect.gen(function*() {
  const calls = Number(process.env.EDGE_BENCH_CALLS ?? 3000)
  // As Relay mounts them (src/studio/teamStudio.ts): no span a request.
  const routed = yield* NodeHttpServer.makeHandler(router).pipe(
    Effect.locally(HttpMiddleware.currentTracerDisabledWhen, () => true)
  )
  const server = createServer((req, res) => req.url === "/raw" ? rawHandler(req, res) : routed(req, res))
  yield* Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void)))
  const port = (server.address() as AddressInfo).port
  const agents = Object.fromEntries(ways.map((w) => [w, new Agent({ keepAlive: true, maxSockets: 1 })]))
  const post = (way: Way, id: number) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x", arguments: {} } })
      const t = performance.now()
      const r = request({
        host: "127.0.0.1",
        port,
        path: `/${way}`,
        method: "POST",
        agent: agents[way]!,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      }, (res) => {
        res.resume()
        res.on("end", () =>
          res.statusCode === 200 ? resolve(performance.now() - t) : reject(new Error(`${res.statusCode}`)))
      })
      r.on("error", reject)
      r.end(body)
    })
  const samples: Record<Way, Array<number>> = { raw: [], router: [], handover: [] }
  yield* Effect.promise(async () => {
    for (let i = 0; i < calls + 300; i++) {
      for (const way of [...ways.slice(i % 3), ...ways.slice(0, i % 3)]) {
        const ms = await post(way, i)
        if (i >= 300) samples[way].push(ms)
      }
    }
  })
  for (const a of Object.values(agents)) a.destroy()
  server.close()
  const stats = Object.fromEntries(ways.map((w) => [w, summarise(samples[w])])) as Record<Way, Stats>
  const row = (w: Way) =>
    `${w.padEnd(10)}${stats[w].p50.toFixed(3).padStart(10)}${stats[w].p95.toFixed(3).padStart(10)}${
      (stats[w].p50 - stats.raw.p50).toFixed(3).padStart(12)
    }`
  return [
    `${"way".padEnd(10)}${"p50 ms".padStart(10)}${"p95 ms".padStart(10)}${"p50 - raw".padStart(12)}`,
    ...ways.map(row),
    `(n=${calls} each, one kept-alive connection a way, calls alternated)`
  ].join("\n")
})

process.stdout.write(`${await Effect.runPromise(main)}\n`)
