// Bundles Relay Studio's page (src/studio/web/app.ts, with @dagrejs/dagre) into dist/studio/assets,
// served by Relay itself: no CDN, so the studio works offline.
import { build } from "esbuild"
import { copyFileSync, mkdirSync } from "node:fs"

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
copyFileSync("src/studio/web/app.css", `${out}/app.css`)
