/// <reference lib="dom" />
/**
 * Zoom and pan of the drawn thread: by mouse (wheel zooms at the pointer, drag pans), by touch (one
 * finger pans, two pinch), by keyboard when the graph has focus (+ and - zoom, the arrows pan, 0 or
 * F fits) and by the toolbar's buttons. A thread is fitted into the box when it opens; it stays
 * fitted (through live updates, more pages and a resized window) until the person zooms or pans.
 */
import type { Drawn } from "./drawing.js"

const margin = 12
const maxScale = 2.5
const step = 1.25
const panStep = 80

export interface Zoom {
  /** Shows a new drawing: fitted, unless `keep` and the person has moved the view. */
  readonly attach: (drawn: Drawn | null, keep: boolean) => void
  readonly fit: () => void
  readonly zoomBy: (factor: number) => void
  /** Pans so that an element of the drawing is in view, when it is not. */
  readonly reveal: (element: Element) => void
  readonly fitted: () => boolean
}

export const makeZoom = (box: HTMLElement): Zoom => {
  let drawn: Drawn | null = null
  let k = 1
  let x = 0
  let y = 0
  let isFitted = true
  let minScale = 0.05

  const apply = () => drawn?.content.setAttribute("transform", `translate(${x},${y}) scale(${k})`)

  const fit = () => {
    isFitted = true
    if (drawn === null) return
    const w = Math.max(box.clientWidth - 2 * margin, 1)
    const h = Math.max(box.clientHeight - 2 * margin, 1)
    k = Math.min(w / drawn.width, h / drawn.height, 1)
    minScale = Math.min(k, 0.2) / 2
    x = (box.clientWidth - drawn.width * k) / 2
    y = margin + Math.max(0, (h - drawn.height * k) / 2)
    apply()
  }

  const zoomAt = (factor: number, px: number, py: number) => {
    if (drawn === null) return
    const next = Math.min(maxScale, Math.max(minScale, k * factor))
    x = px - (px - x) * (next / k)
    y = py - (py - y) * (next / k)
    k = next
    isFitted = false
    apply()
  }
  const panBy = (dx: number, dy: number) => {
    x += dx
    y += dy
    isFitted = false
    apply()
  }
  const local = (e: { clientX: number; clientY: number }) => {
    const r = box.getBoundingClientRect()
    return [e.clientX - r.left, e.clientY - r.top] as const
  }

  box.addEventListener("wheel", (e) => {
    if (drawn === null) return
    e.preventDefault()
    const [px, py] = local(e)
    zoomAt(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.002)), px, py)
  }, { passive: false })

  // Pointers down on the box: one drags, two pinch. A press that moved is a drag, not a click.
  const pointers = new Map<number, { x: number; y: number }>()
  let moved = 0
  box.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 && e.pointerType === "mouse") return
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY })
    moved = 0
  })
  box.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId)
    if (last === undefined) return
    if (pointers.size === 1) {
      moved += Math.abs(e.clientX - last.x) + Math.abs(e.clientY - last.y)
      if (moved > 4) {
        if (!box.hasPointerCapture(e.pointerId)) box.setPointerCapture(e.pointerId)
        panBy(e.clientX - last.x, e.clientY - last.y)
      }
    } else if (pointers.size === 2) {
      const other = [...pointers.entries()].find(([id]) => id !== e.pointerId)![1]
      const before = Math.hypot(last.x - other.x, last.y - other.y)
      const after = Math.hypot(e.clientX - other.x, e.clientY - other.y)
      const [px, py] = local({ clientX: (e.clientX + other.x) / 2, clientY: (e.clientY + other.y) / 2 })
      if (before > 0) zoomAt(after / before, px, py)
      panBy((e.clientX - last.x) / 2, (e.clientY - last.y) / 2)
      moved += 5
    }
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY })
  })
  const up = (e: PointerEvent) => {
    pointers.delete(e.pointerId)
  }
  box.addEventListener("pointerup", up)
  box.addEventListener("pointercancel", up)
  box.addEventListener("click", (e) => {
    if (moved > 4) e.stopPropagation()
  }, true)

  box.addEventListener("keydown", (e) => {
    if (drawn === null || e.altKey || e.ctrlKey || e.metaKey) return
    const cx = box.clientWidth / 2
    const cy = box.clientHeight / 2
    const keys: Record<string, () => void> = {
      "+": () => zoomAt(step, cx, cy),
      "=": () => zoomAt(step, cx, cy),
      "-": () => zoomAt(1 / step, cx, cy),
      "_": () => zoomAt(1 / step, cx, cy),
      "0": fit,
      f: fit,
      F: fit,
      ArrowLeft: () => panBy(panStep, 0),
      ArrowRight: () => panBy(-panStep, 0),
      ArrowUp: () => panBy(0, panStep),
      ArrowDown: () => panBy(0, -panStep)
    }
    const action = keys[e.key]
    if (action === undefined) return
    e.preventDefault()
    action()
  })
  // Focus moving to a fact off screen must not scroll the box (it would shift the whole drawing).
  box.addEventListener("scroll", () => {
    box.scrollTop = 0
    box.scrollLeft = 0
  })
  new ResizeObserver(() => {
    if (isFitted) fit()
  }).observe(box)

  return {
    attach: (next, keep) => {
      drawn = next
      if (!keep || isFitted) fit()
      else apply()
    },
    fit,
    zoomBy: (factor) => zoomAt(factor, box.clientWidth / 2, box.clientHeight / 2),
    reveal: (element) => {
      const r = element.getBoundingClientRect()
      const b = box.getBoundingClientRect()
      if (r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom) return
      panBy(b.left + b.width / 2 - (r.left + r.width / 2), b.top + b.height / 2 - (r.top + r.height / 2))
    },
    fitted: () => isFitted
  }
}
