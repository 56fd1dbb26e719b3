#!/usr/bin/env node
import { answerFirstDiscover } from "./mcp/discoverFront.js"

// Over stdio a 2026 client's server/discover is answered before the server loads (discoverFront.ts).
if (!process.argv.slice(2).includes("--http")) await answerFirstDiscover()
await import("./serverMain.js")
