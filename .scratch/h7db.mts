import { startServer } from "/work/wt/h7-team/test/support/falkordbServer.ts"
const s = await startServer()
console.log(JSON.stringify({ port: s.port, password: s.password }))
process.on("SIGTERM", async () => { await s.stop(); process.exit(0) })
setInterval(() => {}, 1000)
