/// <reference lib="dom" />
/**
 * A minimal MCP Apps host, as a web page: the ext-apps package's own host side (AppBridge over
 * PostMessageTransport) frames the app's HTML in a sandboxed iframe (scripts only, an opaque
 * origin) under the CSP the spec builds from the resource's `_meta.ui.csp`, pushes the tool's input
 * and result, sizes the frame as the app asks, and proxies the app's tools/call to the test's MCP
 * client (`window.relayCall`, which lets through only tools whose visibility has "app").
 */
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge"

interface Csp {
  readonly connectDomains?: ReadonlyArray<string>
  readonly resourceDomains?: ReadonlyArray<string>
  readonly frameDomains?: ReadonlyArray<string>
  readonly baseUriDomains?: ReadonlyArray<string>
}

/** SEP-1865's "CSP Construction from Metadata". */
const policy = (csp: Csp | undefined) => {
  const r = (csp?.resourceDomains ?? []).join(" ")
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${r}`,
    `style-src 'self' 'unsafe-inline' ${r}`,
    `connect-src 'self' ${(csp?.connectDomains ?? []).join(" ")}`,
    `img-src 'self' data: ${r}`,
    `font-src 'self' ${r}`,
    `media-src 'self' data: ${r}`,
    `frame-src ${(csp?.frameDomains ?? []).join(" ") || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp?.baseUriDomains ?? []).join(" ") || "'self'"}`
  ].join("; ")
}

declare global {
  interface Window {
    relayCall: (params: unknown) => Promise<never>
    showApp: (shown: {
      id: string
      html: string
      csp: Csp | undefined
      args: Record<string, unknown>
      result: Record<string, unknown>
    }) => Promise<void>
  }
}

window.showApp = async ({ args, csp, html, id, result }) => {
  const frame = document.createElement("iframe")
  frame.id = id
  frame.setAttribute("sandbox", "allow-scripts")
  frame.style.width = "720px"
  frame.style.border = "1px solid #ccc"
  document.body.append(frame)
  // As a chat scrolls to its newest answer: Chromium does not render a cross-origin frame out of view.
  frame.scrollIntoView()
  const bridge = new AppBridge(null, { name: "relay-test-host", version: "0.0.0" }, { serverTools: {} }, {
    hostContext: { theme: "light", displayMode: "inline", containerDimensions: { width: 720, maxHeight: 900 } }
  })
  bridge.oncalltool = (params) => window.relayCall(params)
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`
  }
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: args }).then(() => bridge.sendToolResult(result as never))
  }
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!))
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy(csp)}">`
  frame.srcdoc = html.replace("<head>", `<head>${meta}`)
}
