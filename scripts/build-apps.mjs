// `npm run build`, last step: Relay's MCP App (the thread drawn in a host's chat, src/apps/web) as one
// HTML document, its script and style inline, which the server answers for ui://relay/thread. The
// document's own Content-Security-Policy allows exactly these two blocks (by hash) and no network:
// the app reaches Relay only through the host's postMessage bridge.
import { build } from "esbuild"
import { createHash } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"

const out = "dist/apps"
mkdirSync(out, { recursive: true })
const bundled = await build({
  entryPoints: ["src/apps/web/threadApp.ts"],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  write: false,
  legalComments: "none",
  logLevel: "warning"
})
// Inside a <script> element only "</script" would end it early.
const script = bundled.outputFiles[0].text.replace(/<\/(script)/gi, "<\\/$1")
// The studio's drawing rules, then the app's own.
const style = readFileSync("src/studio/web/drawing.css", "utf8") + readFileSync("src/apps/web/threadApp.css", "utf8")
const hash = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`
const csp = [
  "default-src 'none'",
  `script-src ${hash(script)}`,
  `style-src ${hash(style)}`,
  "img-src data:",
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'"
].join("; ")
const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Relay thread</title>
<style>${style}</style></head>
<body><script>${script}</script></body></html>
`
writeFileSync(`${out}/thread.html`, html)
