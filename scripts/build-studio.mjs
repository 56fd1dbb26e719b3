// Bundles Relay Studio's page (src/studio/web/app.ts, with @dagrejs/dagre) into dist/studio/assets,
// served by Relay itself: no CDN, so the studio works offline.
import { build } from "esbuild"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"

const out = "dist/studio/assets"
mkdirSync(out, { recursive: true })
await build({
  entryPoints: ["src/studio/web/app.ts"],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  outfile: `${out}/app.js`,
  legalComments: "none",
  logLevel: "warning"
})
// The drawing's rules come first: the MCP App (scripts/build-apps.mjs) draws threads with them too.
writeFileSync(
  `${out}/app.css`,
  readFileSync("src/studio/web/drawing.css", "utf8") + readFileSync("src/studio/web/app.css", "utf8")
)
