/// <reference lib="dom" />
/** Stamps as a person reads them: an age ("3 h ago") on the page, the exact stamp on hover. */
import { el } from "./dom.js"

/** How long before `now` the stamp `iso` is, in words. */
export const ago = (iso: string, now: number): string => {
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000)
  if (!Number.isFinite(seconds)) return iso
  if (seconds < 45) return "just now"
  const minutes = seconds / 60
  if (minutes < 60) return `${Math.max(1, Math.round(minutes))} min ago`
  const hours = minutes / 60
  if (hours < 24) return `${Math.round(hours)} h ago`
  const days = hours / 24
  if (days < 30) return `${Math.round(days)} d ago`
  return iso.slice(0, 10)
}

/** The stamp in full, as a tooltip shows it. */
export const stamp = (iso: string) => iso.replace("T", " ").replace(/\.\d+Z$/, " UTC").replace(/Z$/, " UTC")

/** A `<time>` showing the age, with the stamp on hover. */
export const timeEl = (iso: string, now: number) => el("time", { datetime: iso, title: stamp(iso) }, ago(iso, now))
