import { EmbeddedServerError } from "../../services/EmbeddedServer.js"

export { EmbeddedServerError }

/** The failure of one step, with the sentence to show. */
export const fail = (message: string) => new EmbeddedServerError({ message })
