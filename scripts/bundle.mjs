#!/usr/bin/env node
// `npm run build`, second step: each program Relay runs as (dist/server.js and every command-line
// tool in dist/cli/ that no other module imports) is rebuilt as one file holding its dependencies.
// Node loads an ES module graph file by file: the ~1,000 files of effect, the MCP SDK, zod and the
// driver cost a server start about 1.4 s of CPU, one bundled file about 0.4 s. Every MCP client
// session starts the server, and so do the tests, over a hundred times a run. tsc's per-file output
// stays beside the bundles for scripts/setup-db.mjs and anything else that imports a module of dist/.
import { build } from "esbuild"
import { readdirSync, readFileSync, rmSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const src = join(root, "src")
const cliDir = join(src, "cli")

const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath ?? e.path, e.name))

// A CLI module another module imports (src/cli/common.ts) is a library, not a program.
const imported = new Set()
for (const file of sources(src)) {
  for (const [, spec] of readFileSync(file, "utf8").matchAll(/from\s+"([^"]+)"/g)) {
    if (spec.startsWith(".")) imported.add(join(dirname(file), spec).replace(/\.js$/, ".ts"))
  }
}
const programs = [
  join(src, "server.ts"),
  ...readdirSync(cliDir).filter((f) => f.endsWith(".ts")).map((f) => join(cliDir, f)).filter((f) => !imported.has(f))
]

const dist = join(root, "dist")
const out = (file) => file.slice(src.length + 1).replace(/\.ts$/, "")
// Chunk names carry a content hash: a chunk of an earlier build would otherwise stay behind.
rmSync(join(dist, "chunks"), { recursive: true, force: true })
await build({
  entryPoints: programs.map((file) => ({ in: file, out: out(file) })),
  outdir: dist,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // What the programs share (effect, the SDK, the driver, Relay's own modules) is built once into a
  // few chunks. No source maps: at 12 MB a program they cost the build more than the tests' gain.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  // The native FalkorDB package is found on disk at run time (src/layers/embedded/serverBinary.ts).
  external: ["@falkordblite/*"],
  // CommonJS dependencies inside an ES module call require for Node's own modules.
  banner: {
    js:
      "import { createRequire as __relayRequire } from \"node:module\";\nconst require = __relayRequire(import.meta.url);"
  },
  logLevel: "warning"
})
// tsc's map of a program's module describes a file the bundle replaced.
for (const file of programs) rmSync(join(dist, `${out(file)}.js.map`), { force: true })
console.log(`bundled ${programs.map((f) => basename(f, ".ts")).join(", ")}`)
