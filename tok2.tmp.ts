import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { appListing, listing } from "./src/mcp/mcpHandlers.js"
const e = (l: typeof listing) => l.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))
console.log("listing", countTokens(JSON.stringify(e(listing))), "with app", countTokens(JSON.stringify(e([...listing, ...appListing]))))
