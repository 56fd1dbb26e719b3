import puppeteer, { type Browser, type Page } from "puppeteer-core"

/** Debian's chromium, headless (test/studio/studio.test.ts launches it the same way). */
export const launchChromium = (): Promise<Browser> =>
  puppeteer.launch({
    executablePath: process.env.RELAY_TEST_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox"]
  })

/**
 * A page that records what a person would not see but a test must: every console error (Chromium
 * reports a Content-Security-Policy refusal there, e.g. a form whose redirect `form-action` blocks)
 * and every navigation to an app's own scheme (`claude://`, `cursor://`), which no server answers
 * and which Chromium hands to the system; here the test reads it off the DevTools protocol.
 * Requests to `intercepted` origins are answered by `answer` (a hosted client's callback).
 */
export const watchedPage = async (
  browser: Browser,
  answer: (url: URL) => { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string }
) => {
  const page: Page = await browser.newPage()
  const errors: Array<string> = []
  const appUrls: Array<URL> = []
  const waiters: Array<{ scheme: string; resolve: (u: URL) => void }> = []
  // A failed resource load is the page's own business (the studio asks who is signed in and hears 401).
  page.on("console", (m) => {
    const text = m.text()
    if (
      (m.type() === "error" && !text.startsWith("Failed to load resource")) || /Content Security Policy/i.test(text)
    ) {
      errors.push(text)
    }
  })
  page.on("pageerror", (e) => errors.push(String(e)))
  const cdp = await page.createCDPSession()
  await cdp.send("Network.enable")
  cdp.on("Network.requestWillBeSent", (e) => {
    const url = new URL(e.request.url)
    if (url.protocol === "http:" || url.protocol === "https:" || url.protocol === "data:") return
    appUrls.push(url)
    for (const w of waiters.splice(0)) {
      if (url.protocol === w.scheme) w.resolve(url)
      else waiters.push(w)
    }
  })
  await page.setRequestInterception(true)
  const answered: Array<URL> = []
  page.on("request", (request) => {
    const url = new URL(request.url())
    if (url.hostname.endsWith(".example")) {
      answered.push(url)
      const reply = answer(url)
      return void request.respond({ status: reply.status, headers: reply.headers ?? {}, body: reply.body ?? "" })
    }
    void request.continue()
  })
  /** The first navigation to `scheme` (e.g. "cursor:"), within `timeout` ms. */
  const appNavigation = (scheme: string, timeout = 10_000) => {
    const seen = appUrls.find((u) => u.protocol === scheme)
    if (seen !== undefined) return Promise.resolve(seen)
    return new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${scheme} navigation; console: ${errors.join(" | ")}`)),
        timeout
      )
      waiters.push({
        scheme,
        resolve: (u) => {
          clearTimeout(timer)
          resolve(u)
        }
      })
    })
  }
  return { page, errors, answered, appNavigation }
}

/** Types `token` into the studio's sign-in form and submits it, as a person does. */
export const signInToStudio = async (page: Page, token: string) => {
  await page.waitForSelector("input[name=token]")
  await page.type("input[name=token]", token)
  await Promise.all([page.waitForNavigation(), page.click(".signin button[type=submit]")])
}

/** Until the studio has drawn its lists at least once. */
export const studioDrawn = (page: Page) =>
  page.waitForFunction(() => Number(document.body.dataset["refreshes"] ?? "0") > 0, { timeout: 10_000 })
