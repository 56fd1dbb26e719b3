import {
  awsSecretKey,
  basicAuth,
  bearerToken,
  commandLinePassword,
  genericAssignment,
  keyField,
  telegramBotToken,
  urlKey,
  urlWithCredentials
} from "./contextRules.js"
import { pattern, token } from "./patterns.js"
import { mixedAlphanumeric } from "./valueShape.js"

export interface SecretRule {
  /** Human-readable name; the only thing the scanner ever reports. */
  readonly kind: string
  /** True when `text` contains a secret of this kind. */
  readonly test: (text: string) => boolean
}

// ---------------------------------------------------------------------------
// The table. Order matters: the first match names the kind, so specific prefixes come
// before the broader shapes that would also match them (Anthropic before OpenAI, every
// provider before JWT, AWS secret and the generic rules last).
// ---------------------------------------------------------------------------

export const secretRules: ReadonlyArray<SecretRule> = [
  // Private keys: the header alone is enough (truncated block, squashed newlines).
  // "BEGIN RSA PRIVATE KEY", "BEGIN OPENSSH PRIVATE KEY", "BEGIN PGP PRIVATE KEY BLOCK", ...
  { kind: "private key block", test: pattern(/BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY/) },
  // Lower case only with the dashes: "we begin by generating a private key" is prose.
  { kind: "private key block", test: pattern(/-{3,}[ \t]*begin[ _][a-z0-9 _]{0,40}private[ _]key/i) },
  { kind: "private key block", test: pattern(/PuTTY-User-Key-File-\d/) },
  // Headerless key bodies: base64 of "openssh-key-v1", PKCS#1 RSA (1024 and 2048+ bits),
  // PKCS#8 RSA and EC (P-256, P-384, P-521, secp256k1), SEC1 EC (`MHcCAQEE` is P-256),
  // PKCS#8 Ed25519/X25519 and Ed448/X448. Each is the DER header of a private key, not a
  // public one, and starts a base64 run.
  {
    kind: "private key block",
    test: pattern(
      /b3BlbnNzaC1rZXktdjE|MII[A-Za-z0-9+/]{1,3}IBAAK(?:C[AB]|BgQ)|MII[A-Za-z0-9+/]{1,3}IBADANBgkqhkiG9w0BAQEFAAS|MI[GH][A-Za-z0-9+/]{1,2}AgEAMB[AM]GByqGSM49AgEG/
    )
  },
  {
    kind: "private key block",
    test: pattern(
      /(?<![A-Za-z0-9+/])(?:MHcCAQEE|MHQCAQEE|MIGkAgEBBD|MIHcAgEBBE|MC4CAQAwBQYDK2V[wu]|ME[cY]CAQAwBQYDK2V[xo])/
    )
  },
  { kind: "age secret key", test: pattern(/AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/) },

  // Cloud providers
  { kind: "AWS access key id", test: pattern(token("(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}")) },
  { kind: "Google API key", test: pattern(token("AIza[A-Za-z0-9_-]{35}")) },
  { kind: "Google OAuth client secret", test: pattern(token("GOCSPX-[A-Za-z0-9_-]{28}")) },
  { kind: "Google OAuth access token", test: pattern(token("ya29\\.[A-Za-z0-9_-]{30,}")) },
  {
    kind: "Azure storage or service bus key",
    test: pattern(/(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,100}={0,2}/)
  },
  { kind: "Azure SAS token", test: pattern(/[?&]sv=\d{4}-\d{2}-\d{2}&[^\s]{0,300}?\bsig=[A-Za-z0-9%+/]{30,}/) },
  { kind: "Azure AD client secret", test: pattern(token("[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}")) },
  { kind: "DigitalOcean token", test: pattern(token("do[opr]_v1_[a-f0-9]{64}")) },
  { kind: "Heroku API key", test: pattern(token("HRKU-AA[A-Za-z0-9_-]{58}")) },
  { kind: "Cloudflare origin CA key", test: pattern(token("v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}")) },
  {
    kind: "Fly.io token",
    test: pattern(/(?<![A-Za-z0-9_-])fo1_[A-Za-z0-9_-]{43}|FlyV1 fm[12][ar]?_[A-Za-z0-9+/]{50,}/)
  },
  { kind: "Databricks token", test: pattern(token("dapi[a-f0-9]{32}(?:-\\d)?")) },
  { kind: "Terraform Cloud token", test: pattern(token("[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,70}")) },
  { kind: "Pulumi token", test: pattern(token("pul-[a-f0-9]{40}")) },
  { kind: "Supabase key", test: pattern(token("(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{31,})")) },

  // Source hosting and package registries
  { kind: "GitHub token", test: pattern(token("gh[pousr]_[A-Za-z0-9]{36,255}")) },
  { kind: "GitHub fine-grained token", test: pattern(token("github_pat_[A-Za-z0-9_]{50,255}")) },
  {
    kind: "GitLab token",
    test: pattern(
      token(
        "(?:glpat|gldt|glrt|glptt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct)-[A-Za-z0-9_.-]{20,}|GR1348941[A-Za-z0-9_-]{20}"
      )
    )
  },
  { kind: "npm token", test: pattern(token("npm_[A-Za-z0-9]{36}")) },
  { kind: "PyPI token", test: pattern(token("pypi-AgE[A-Za-z0-9_-]{50,}")) },
  { kind: "Docker Hub token", test: pattern(token("dckr_pat_[A-Za-z0-9_-]{27}")) },
  { kind: "Atlassian API token", test: pattern(token("ATATT3[A-Za-z0-9_=-]{100,}")) },

  // AI providers (Anthropic before OpenAI: both start with "sk-")
  { kind: "Anthropic API key", test: pattern(token("sk-ant-[a-z0-9]{3,10}-[A-Za-z0-9_-]{32,}")) },
  {
    kind: "OpenAI API key",
    test: pattern(token("sk-(?:proj-|svcacct-|admin-)?([A-Za-z0-9_-]{20,})", "g"), mixedAlphanumeric)
  },
  { kind: "Hugging Face token", test: pattern(token("(?:hf_|api_org_)[A-Za-z]{34}")) },
  { kind: "Replicate token", test: pattern(token("r8_[A-Za-z0-9]{37}")) },
  { kind: "Groq API key", test: pattern(token("gsk_[A-Za-z0-9]{52}")) },

  // Messaging and collaboration
  { kind: "Slack token", test: pattern(token("(?:xox[abposre]|xoxe\\.xox[bp])-[0-9A-Za-z-]{10,}")) },
  { kind: "Slack app token", test: pattern(token("xapp-\\d-[A-Za-z0-9-]{20,}")) },
  { kind: "Slack webhook", test: pattern(/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/) },
  { kind: "Discord webhook", test: pattern(/discord(?:app)?\.com\/api\/webhooks\/\d{5,30}\/[A-Za-z0-9_-]{40,}/) },
  {
    kind: "Discord bot token",
    test: pattern(token("[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}"))
  },
  { kind: "Telegram bot token", test: telegramBotToken },
  {
    kind: "Microsoft Teams webhook",
    test: pattern(/webhook\.office\.com\/webhookb2\/[A-Za-z0-9@-]{30,}\/IncomingWebhook\/[A-Za-z0-9]{20,}/)
  },
  { kind: "Linear API key", test: pattern(token("lin_api_[A-Za-z0-9]{40}")) },
  {
    kind: "Notion token",
    test: pattern(token("(?:ntn_\\d{11}[A-Za-z0-9]{35}|secret_([A-Za-z0-9]{43}))", "g"), (v) => mixedAlphanumeric(v))
  },
  { kind: "Postman API key", test: pattern(token("PMAK-[a-f0-9]{24}-[a-f0-9]{34}")) },
  { kind: "Twitter bearer token", test: pattern(/(?<![A-Za-z0-9%])A{21}([A-Za-z0-9%]{30,})/, mixedAlphanumeric) },

  // Payments and e-mail
  { kind: "Stripe secret key", test: pattern(token("(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}")) },
  { kind: "Stripe webhook secret", test: pattern(token("whsec_[A-Za-z0-9]{32,}")) },
  {
    kind: "Square token",
    test: pattern(token("(?:sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43}|EAAA[A-Za-z0-9_-]{60})"))
  },
  { kind: "Shopify token", test: pattern(token("shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}")) },
  { kind: "PayPal Braintree token", test: pattern(/access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}/) },
  { kind: "Twilio API key", test: pattern(token("SK[0-9a-fA-F]{32}")) },
  { kind: "SendGrid API key", test: pattern(token("SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}")) },
  { kind: "Mailgun API key", test: pattern(token("key-[0-9a-f]{32}")) },
  { kind: "Mailchimp API key", test: pattern(token("[0-9a-f]{32}-us\\d{1,2}")) },

  // Secrets managers and observability
  { kind: "HashiCorp Vault token", test: pattern(token("(?:hvs|hvb|hvr)\\.[A-Za-z0-9_-]{24,}")) },
  {
    kind: "Doppler token",
    test: pattern(token("dp\\.(?:pt|st|sa|ct|scim|audit)\\.(?:[a-z0-9_-]{1,40}\\.)?[A-Za-z0-9]{40,44}"))
  },
  { kind: "1Password service account token", test: pattern(token("ops_eyJ[A-Za-z0-9+/=_-]{100,}")) },
  {
    kind: "Grafana token",
    test: pattern(token("(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})"))
  },
  { kind: "New Relic key", test: pattern(token("NR(?:AK|II|JS)-[A-Za-z0-9]{27}")) },
  { kind: "Sentry token", test: pattern(token("(?:sntrys_eyJ[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64})")) },

  // Structured tokens (after every provider that embeds one, e.g. sntrys_eyJ..., ops_eyJ...)
  { kind: "JWT", test: pattern(token("eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{0,1000}")) },

  // Context rules
  { kind: "AWS secret access key", test: awsSecretKey },
  { kind: "URL with embedded credentials", test: urlWithCredentials },
  { kind: "HTTP basic auth credentials", test: basicAuth },
  { kind: "bearer token", test: bearerToken },
  { kind: "command-line password", test: commandLinePassword },
  { kind: "API key in a URL query", test: urlKey },
  { kind: "password or secret assignment", test: keyField },
  { kind: "password or secret assignment", test: genericAssignment }
]
