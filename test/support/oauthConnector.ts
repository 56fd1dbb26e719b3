import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens
} from "@modelcontextprotocol/sdk/shared/auth.js"

/**
 * A hosted connector's or desktop app's OAuth state, in memory, for the SDK's own OAuth client (`auth()`,
 * or a transport's authProvider); whoever opens the authorization URL is the test (fetch, or Chromium).
 */
export class Connector implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ""
  authorizationUrl: URL | undefined
  constructor(
    readonly redirectUri: string,
    readonly name: string,
    readonly metadataUrl?: string
  ) {}
  get clientMetadataUrl(): string {
    return this.metadataUrl ?? ""
  }
  get redirectUrl() {
    return this.redirectUri
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none"
    }
  }
  state() {
    return "st-" + Math.random().toString(36).slice(2)
  }
  clientInformation() {
    return this.info
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}
