/// <reference lib="dom" />
/**
 * Building the page. Every text from the memory goes in as a text node (`el`'s string children,
 * textContent, SVG text), never as markup, so a fact that holds `<script>` shows as those characters.
 */
const svgNs = "http://www.w3.org/2000/svg"

export const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
  for (const c of children) e.append(typeof c === "string" ? document.createTextNode(c) : c)
  return e
}

export const svg = (tag: string, attrs: Record<string, string | number> = {}) => {
  const e = document.createElementNS(svgNs, tag)
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v))
  return e
}

export const setText = (node: Element, text: string) => {
  node.textContent = text
}

export const short = (id: string) => id.slice(0, 8)

export const cut = (s: string, n: number) => {
  const chars = [...s.replace(/\s+/g, " ").trim()]
  return chars.length > n ? `${chars.slice(0, n - 1).join("")}…` : chars.join("")
}
