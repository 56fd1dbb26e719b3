/// <reference lib="dom" />
/**
 * Fitting text into a node: measured with a canvas in the font the SVG text is drawn in
 * (app.css sets the same), so a wrapped line is never wider than its box.
 */
const canvas = document.createElement("canvas").getContext("2d")

export const fonts = {
  head: "11px system-ui, sans-serif",
  body: "12px system-ui, sans-serif",
  label: "11px system-ui, sans-serif"
} as const

export const textWidth = (text: string, font: string): number => {
  if (canvas === null) return [...text].length * 7
  canvas.font = font
  return canvas.measureText(text).width
}

/** The longest start of `text` that fits `width` with an ellipsis (the whole text when it fits). */
export const fitLine = (text: string, width: number, font: string): string => {
  if (textWidth(text, font) <= width) return text
  const chars = [...text]
  let lo = 0
  let hi = chars.length
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (textWidth(`${chars.slice(0, mid).join("").trimEnd()}…`, font) <= width) lo = mid
    else hi = mid - 1
  }
  return `${chars.slice(0, lo).join("").trimEnd()}…`
}

/**
 * `text` wrapped at spaces into at most `maxLines` lines of `width`; a word wider than a line is
 * broken, and the last line ends with an ellipsis when text is left over.
 */
export const wrap = (text: string, width: number, font: string, maxLines: number): Array<string> => {
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter((w) => w !== "")
  const lines: Array<string> = []
  let line = ""
  let i = 0
  while (i < words.length && lines.length < maxLines) {
    const word = words[i]!
    const next = line === "" ? word : `${line} ${word}`
    if (textWidth(next, font) <= width) {
      line = next
      i++
    } else if (line !== "") {
      lines.push(line)
      line = ""
    } else {
      // One word wider than a line: as many of its characters as fit, the rest on the next line.
      const chars = [...word]
      let n = 1
      while (n < chars.length && textWidth(chars.slice(0, n + 1).join(""), font) <= width) n++
      lines.push(chars.slice(0, n).join(""))
      words[i] = chars.slice(n).join("")
    }
  }
  if (line !== "") lines.push(line)
  if (i < words.length && lines.length > 0) {
    lines[lines.length - 1] = fitLine([lines[lines.length - 1]!, ...words.slice(i)].join(" "), width, font)
  }
  return lines
}
