/// <reference lib="dom" />
/** The page when no session is open: the one-time link's hint on a laptop, the token form in team mode. */
import { base } from "./api.js"
import { el } from "./dom.js"

/** `signin`: the sign-in form's last outcome, from its redirect (`failed`, `unavailable`), or null. */
export const signIn = (team: boolean, signin: string | null) => {
  const box = el("div", { class: "signin" }, el("h1", {}, "Relay Studio"))
  if (!team) {
    box.append(el("p", {}, "Open the one-time link that npm run studio printed (each link signs in one browser once)."))
  } else {
    const form = el(
      "form",
      { method: "post", action: `${base}/login` },
      el("label", {}, "Token ", el("input", { type: "password", name: "token", autocomplete: "off" })),
      el("button", { type: "submit" }, "Sign in")
    )
    box.append(el("p", {}, "Sign in with your Relay token: you will see that token's workspace, read-only."), form)
    if (signin === "failed") box.append(el("p", { class: "error" }, "That token was not accepted."))
    if (signin === "unavailable") {
      box.append(el("p", { class: "error" }, "Relay cannot reach its database right now: try again in a moment."))
    }
  }
  document.getElementById("app")!.replaceChildren(box)
}
