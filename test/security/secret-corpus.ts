/**
 * Fake credentials for the secret scanner tests. Every value was generated at random in the
 * right shape (alphabet and length) for its kind; none is a real secret. Each `kind` is the
 * name `findSecretKind` is expected to report.
 */

export const credentials: ReadonlyArray<{ readonly kind: string; readonly text: string }> = [
  {
    kind: "private key block",
    text:
      "Here is the deploy key: -----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAaHSYcdZJddcLA6tjP273q70/GJm1syxf7XQUJEIDJAuzjyR8CK2a8OdNnRP7ytypKHaORpqQ45/VUwPC+treYcFWfL28F9z5IgttwEwcwYFn2doXu4V1TPbr xSIL6NVdbn1zU2Gh2hJyWDAfs/l8WPT3rDP2N1gCcvjIEtwOvmdRhlDyzrUGd/+n -----END RSA PRIVATE KEY-----"
  },
  {
    kind: "private key block",
    text:
      "The bastion key is -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW0I2gDAWxgz4/03MwDQQdoyfPVjT609hKq6t4VzYDvII/5ttbdHqPcwUa+m7q -----END OPENSSH PRIVATE KEY-----"
  },
  {
    kind: "private key block",
    text:
      "Release signing uses -----BEGIN PGP PRIVATE KEY BLOCK----- lQOYBGXcdH1CqK4zfFC9KbI1QFmpKFDn93OoV4NKYQA4X8DHKKz54Dyfgus+846KfzBgDNltE33jRono6mnb7oAm7G1Cf7lXL =UUJT -----END PGP PRIVATE KEY BLOCK-----"
  },
  {
    kind: "private key block",
    text:
      "The service account key starts with -----BEGIN PRIVATE KEY----- MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCHjC2T/Q/XL0TD9BruUH/9VtbsE9+j1y4yQdfpMgc (rest omitted)"
  },
  { kind: "private key block", text: "-----BEGIN EC PRIVATE KEY-----" },
  {
    kind: "private key block",
    text: "The old key file was truncated after -----BEGIN ENCRYPTED PRIVATE KEY----- so re-export it."
  },
  {
    kind: "private key block",
    text:
      "Key material without header: b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0l3vtPHpc6/xpVufvP7SYHpO3M5ytziZpcQH1/QgD"
  },
  { kind: "AWS access key id", text: "The CI user uses access key AKIAIOSFODNN7EXAMPLE for the uploads bucket." },
  { kind: "AWS access key id", text: "Use AKIAIXPRXOUYC3DMUK5K with region eu-west-1 for the backup job." },
  { kind: "AWS access key id", text: "Temporary creds from STS: ASIADRWOXLFMPQGI6GBH (expires in 1h)." },
  {
    kind: "AWS secret access key",
    text:
      "AWS secret access key for the backup user is KJRG3tWhCnOPNxnxloL3HomM4HBJrPpBWHjyJh+n and it lives in 1Password."
  },
  {
    kind: "AWS secret access key",
    text: "aws configure: secret Msm8QYJOS1oCAs5gxV2QLnMwwlDXMdux2dSK8S01 region us-east-1"
  },
  { kind: "GitHub token", text: "Use the deploy token ghp_hIFCrMQKrie5yGH6qlqrSGlCkaP1mTWMY8EJ for CI." },
  { kind: "GitHub token", text: "The OAuth app returned gho_naIg8O3rIiHaJJHPCk50RxwsVisNntv15f05 after the callback." },
  { kind: "GitHub token", text: "ghs_k9ja99KYSAQGgYmwem9fFVuadw2WAG7HQiQE" },
  {
    kind: "GitHub token",
    text: "Renovate authenticates with ghu_5Ie0rPmBrOVbppbR9xlq4fw39hEF6iqx6RYn on the self-hosted runner."
  },
  {
    kind: "GitHub fine-grained token",
    text:
      "The fine-grained PAT is 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 scoped to relay only."
  },
  {
    kind: "GitHub fine-grained token",
    text:
      "export GH_TOKEN=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"
  },
  { kind: "GitLab token", text: "GitLab personal token glpat-sgisbyZWdPccl1bc54Rg has api scope." },
  { kind: "GitLab token", text: "Runner registered with glrt-yiRUeID5NXnPk-Xky3II on the build host." },
  { kind: "GitLab token", text: "Deploy token for the registry: gldt-TPYLIUAKB6Mb_uRfGEC0" },
  {
    kind: "Slack token",
    text: "The bot token is xoxb-406737721372-1451861212869-xLfAlG9hpxz6Z89fKhovYVsC for #alerts."
  },
  {
    kind: "Slack token",
    text:
      "User token xoxp-119367493211-295754540640-8532415949771-442549f89c9de6c14fbf7186ab321813 was used for the export."
  },
  {
    kind: "Slack app token",
    text:
      "Socket mode needs xapp-1-ARWYDD2BEQH-6014125508896-8e809feff7b17b828c60a7b045f55d41c04829de71ac8dba44bb83ad115c2671 in the env."
  },
  {
    kind: "Slack webhook",
    text: "Alerts post to https://hooks.slack.com/services/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 from Grafana."
  },
  {
    kind: "Stripe secret key",
    text:
      "Billing uses 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 in production."
  },
  {
    kind: "Stripe secret key",
    text:
      "The restricted key 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 can only read charges."
  },
  { kind: "Stripe secret key", text: "For local dev use sk_test_ZqhdtDQhC1CtNRWHumGg1rCC against the test account." },
  { kind: "Stripe webhook secret", text: "Verify webhook signatures with whsec_pWSagOGL1DgzJD14D8QnYSjlzj1zMrZR." },
  {
    kind: "OpenAI API key",
    text:
      "The summariser calls OpenAI with 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."
  },
  { kind: "OpenAI API key", text: "OPENAI_API_KEY is 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" },
  {
    kind: "OpenAI API key",
    text:
      "Service account key sk-svcacct-fxydgQCdzfzhvUhs9zSmdvOfVDbWl1GZ6Gr6b33ruwniJHHTUenzX7uCy49Slq1JA1b for the batch worker."
  },
  {
    kind: "Anthropic API key",
    text:
      "Claude access uses sk-ant-api03-PbeIytmtDhrS4bW1sIP8SkrPsNKdzmrvmqFoQIkQ2RW4qvQBRV23Iv2Aj6PlqbqjxspCo-buk00ZWc8iEvNktb7lDhhx4AA from the team vault."
  },
  {
    kind: "Anthropic API key",
    text:
      "The admin key sk-ant-admin01-1G3w0zpOOOcVm7XQMQZB4A9MR3v1MJCVlV4JcwX0QHQSLhyXZJLIrGpZKkJ9SwEe34-Q2klrpaqSXFc5Lo-MkOXDIx4-yAA manages workspaces."
  },
  { kind: "Google API key", text: "Maps is configured with AIza5i_cFV8JXcw058cdD_dDafZ67YdEe0Ip9HF in the web build." },
  { kind: "Google API key", text: "AIzaHI5dU9mcjNiH1XjnCaSv_LKC75hfD6v06RX" },
  {
    kind: "Google OAuth client secret",
    text: "The OAuth client secret is 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 for the desktop app."
  },
  {
    kind: "Google OAuth access token",
    text:
      "Debug call used Authorization ya29.a06lLXDPj9DKsrTU7amyK2Y5G6KOvKNgg1dTchGmQcwCKF_kyc1CJmyA-yisQWF6kf_OHLEW6-YaFzAiuYNlRJF-8uDpAae3Vov-lO8-G9bYlBub-ByiuHefTG from gcloud."
  },
  {
    kind: "JWT",
    text:
      "The session cookie was eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSIsImlhdCI6MTcxNjIzOTAyMn0.bsodVQZPFv87WSsPPDpvGHA33peFcwIhKYDPTZzMD2C when it failed."
  },
  {
    kind: "JWT",
    text:
      "Supabase service role key: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6ImNxbGZlaHZ1d3dtZXpteGpsenRkIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoyMDE1NTc2MDAwfQ.-SqJVHZhN7rjN5DTR_cpYmAnjv964i564Rbn-AVclU8"
  },
  {
    kind: "JWT",
    text:
      "curl -H \"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtcmVsYXkiLCJzY29wZSI6ImFkbWluIiwiZXhwIjoxODkzNDU2MDAwfQ.24jJnvw9nD5arHvQm7SjzHD7KaSFWdeDEMsOHwDJNy-\" https://api.internal/v1/jobs"
  },
  { kind: "npm token", text: "Publish with npm_IgNEy6Dl9aef35uzh8RtMcPxe9ft7EwAZtM5 from the release workflow." },
  { kind: "npm token", text: "//registry.npmjs.org/:_authToken=npm_nqD8aWVb2Dpp5AQpEyJ4XNonoxycEUXdT8NF" },
  {
    kind: "PyPI token",
    text:
      "Twine uploads with pypi-AgEIcHlwaS5vcmcCJDkXiIIUBFCuoM2YXnfHKf_PxOUxnA8F3n5XlH4TtCCwkzvR16RUzmw_mGCvpbG as __token__."
  },
  { kind: "Docker Hub token", text: "docker login -u relaybot -p dckr_pat_KZyknZTrnvDSaCSy903SEaDaiFK" },
  {
    kind: "password or secret assignment",
    text: "The staging DB is configured with DB_PASSWORD=Xk9#mP2vLq7!wZ in .env."
  },
  { kind: "password or secret assignment", text: "{\"username\": \"svc_relay\", \"password\": \"T7r!qP0z-Lm3Wx8e\"}" },
  {
    kind: "password or secret assignment",
    text: "Set client_secret: V_IRAZGb3n7HL0q5TutJHcK4QDlet6Bk in the OIDC config."
  },
  {
    kind: "password or secret assignment",
    text: "api_key = \"d0915ffbbd73acc3d5a53135fe9c24c9\" was hard-coded in settings.py."
  },
  { kind: "password or secret assignment", text: "The admin password is Summer2024!Relay and it must be rotated." },
  { kind: "password or secret assignment", text: "Server=sql01;User Id=sa;Password=Str0ng!Pa55word;Encrypt=true" },
  {
    kind: "password or secret assignment",
    text: "access_token: jxiJfiW4nHEnE3tyyjsD9YnUHelCTMp6EgmUxZvv (expires tomorrow)"
  },
  { kind: "password or secret assignment", text: "passwd: 'q8V#n2Lk!r'" },
  { kind: "password or secret assignment", text: "REDIS_AUTH_TOKEN=6ahKqS2thZvbXSGJCw9uyDv0WAxNCiNbKXxgOxNmNe0R5x56" },
  { kind: "password or secret assignment", text: "apikey: TDBd9gCtXSVnHyXebhVrRHOQEBqBntD9 for the weather API" },
  {
    kind: "password or secret assignment",
    text: "JWT_SECRET=BXn/0e/GRhYJ3ztFKro2YQVJc2A97xPJKF8inibWKh/KKjuBxhsAz+qfmtP2Mbqj"
  },
  {
    kind: "password or secret assignment",
    text: "For the geocoder my api key is eXTZWEvtywr55lv3zficveqA, please keep it handy."
  },
  {
    kind: "password or secret assignment",
    text:
      "Rails secret_key_base: ff92c376995b4ac486db8f781286463ce66d635526ec951aafaaab99c0438f36856aa65bc037832a390f9a8dbaefdd6100e6bf949b649ff3aeb6274ff3499c5c"
  },
  {
    kind: "URL with embedded credentials",
    text: "Connect with postgres://relay:fb9C7Mioh3MrLTq1@db.internal:5432/relay in staging."
  },
  {
    kind: "URL with embedded credentials",
    text: "The cache is redis://:BqwJIMjv6bEuT2840VCHi78T@cache.prod.internal:6379/0"
  },
  {
    kind: "URL with embedded credentials",
    text: "Mirror via https://ci-bot:6ZxFQ7nIw1ncPXR157dQ@git.example.org/relay.git when the SSH route is down."
  },
  {
    kind: "URL with embedded credentials",
    text: "mongodb+srv://admin:p%40ssEVYUm8VZh7@cluster0.ab1cd.mongodb.net/prod"
  },
  { kind: "URL with embedded credentials", text: "amqp://worker:Qz7!mR2x@rabbit.internal:5672/" },
  {
    kind: "HTTP basic auth credentials",
    text: "curl -H \"Authorization: Basic ZGVwbG95OlBYZnlWanNqRFM5dklqdzRrMg==\" https://registry.internal"
  },
  {
    kind: "bearer token",
    text: "Call the admin API with Authorization: Bearer D_NOmda_fdsqmh-EIxhVnHIPcaR5HBzOa8zeZq5xi21WyqU-"
  },
  { kind: "Twilio API key", text: "Twilio API key SK1717b8d0569a9df5d8eb11eb6ec542f1 sends the SMS codes." },
  {
    kind: "SendGrid API key",
    text: "Mail goes out via SendGrid with 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"
  },
  { kind: "Mailgun API key", text: "The Mailgun key is key-c876e8bb4882071aa636148f57916692 for mg.relay.dev." },
  {
    kind: "Mailchimp API key",
    text: "Newsletter sync uses 239c5016bac23d95d184df06286ec210-us21 as the Mailchimp key."
  },
  {
    kind: "Azure storage or service bus key",
    text:
      "DefaultEndpointsProtocol=https;AccountName=relaylogs;AccountKey=q8wpthGctR7WrN/O59625bwnyVmu3VVMfyMT8RJbHPGFjq9pFUnSeT2dC+6xGL23hNrohIkg9uQm6/rLrr9cza==;EndpointSuffix=core.windows.net"
  },
  {
    kind: "Azure storage or service bus key",
    text:
      "Endpoint=sb://relay-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=rEgnjtMGYEo+qMdhxAxgbEfJiCfLnfxFRreTkclz9ie="
  },
  {
    kind: "Azure SAS token",
    text:
      "Upload URL https://relaylogs.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2025-12-31T00:00:00Z&sig=kZOF4GSeiDdRAh6MT4hgFZJ8KaceLFFNiWY720qi%3D"
  },
  {
    kind: "Azure AD client secret",
    text: "The app registration secret is FPh8Q~PD9V21z.9W~c6TqAqSFWDkoh5BbaPYY8j. until March."
  },
  {
    kind: "Heroku API key",
    text: "Heroku CLI token HRKU-AARyWzz1fKaL0YW9VGpJNPHlvrTzd4ZmUc-sdf5JDIr29wm6LqjtREhECOHL is in the CI settings."
  },
  {
    kind: "DigitalOcean token",
    text: "doctl auth init --access-token dop_v1_be542dd897bef6675577ec675dfcad587b68aab0247ab62e67145dfc43d90385"
  },
  { kind: "Shopify token", text: "The Shopify admin token 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 can edit products." },
  { kind: "Hugging Face token", text: "Download weights with 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 set as HF_TOKEN." },
  {
    kind: "Discord bot token",
    text: "Discord bot token: MXJFTqdIReeF4MF_t2mdNEGSV5.p_mORx.ImG7Gr72wv0uNHQlEf4yuwPMQIU_47fCieszUG"
  },
  {
    kind: "Discord webhook",
    text:
      "Deploy notices go to https://discord.com/api/webhooks/804399872323817963/7q9Z0b5224wiyVkgHqTJJGubCgV_mwV3Bw3Saf2jQ6WBvODP7EcIpMkR_mAukVp30kBx"
  },
  { kind: "Telegram bot token", text: "The alert bot uses 8236479216:AAdWVUzqOi7576ZC0SRR65O5UjHpX7m0RNp" },
  { kind: "Square token", text: "Square sandbox access token sq0atp-stYpdT4_aI8bG2QdTEWKlj for the POS demo." },
  {
    kind: "Square token",
    text: "Square production token EAAA7iQFKM0RIoPAb6kxUkxa5-LL095ra01b7-0Ri7IKJejiZEC4PCgk-kP4_PBj"
  },
  { kind: "Databricks token", text: "The notebook job authenticates with dapi90c62c698167dd55b8fd3a0c082005f6." },
  {
    kind: "Doppler token",
    text: "Doppler service token dp.st.prd.0ofhVXE8Z6QcEY3bN70vVuDiAWdm2Kiapo7ICxnS for the prod config."
  },
  { kind: "Doppler token", text: "DOPPLER_TOKEN is dp.pt.ibUdTxSuPcPhBv13B9GQgdZL74NxXpxgyo2opOk0qka" },
  {
    kind: "HashiCorp Vault token",
    text: "vault login hvs.SApMlv_K2Df98yULj4GOIAS8UcJukdf_IvR-mvSC2nMIGzuyEO9nclWHiYOh7Vs2MiqnNXNoegA0QGOilnItGZjeLeV"
  },
  {
    kind: "HashiCorp Vault token",
    text: "Root token for the dev Vault: hvs.CAESIxa9aWQUNRf7PaXGHlQm-Q4dWWN-ikCj5aiKcLZx46mkb5bxtJvtf3fJ8lQA_"
  },
  { kind: "Postman API key", text: "Postman API key PMAK-a624923e66e73e476801da12-42503a2320897d1d797f5625f499c3058a" },
  { kind: "Linear API key", text: "The Linear integration uses lin_api_tIPzVpX9hnLkBi30eZ0cM9u6NynA9hxZS6uBe2yf." },
  {
    kind: "Atlassian API token",
    text:
      "Jira token ATATT3xFfGF0NdHJFHQXYjijNWMdDvnkCCjPDCmR1VIIDWYAdF5gCK1Jf4kR00he9iSOVP2DZu8RRUOWL7JqDfcyvIsi4t3C5jyeIc2ORA4ULleCxQs2bNB6B78yiLmUPrNFDGnA4UsM5ZuMfncTp4_q-0U-Ka_Dn0XpeVJqqU5oC4TcpBOMRq5mpY5kG5Gs=345f6990"
  },
  { kind: "Grafana token", text: "Grafana service account token glsa_drbB2OANkM2QJiBJRaOMBLpSAhXjGwwG_2878e723" },
  {
    kind: "Grafana token",
    text:
      "Grafana cloud token glc_ith1Qj2vUAAUPtY0eFsO/yYjBZHN1eYISfCkO6xRKD+ZYcMkCYdhTauSGnNPElBdlNfJXN1cmMOgMzP1WGGFjH1i+BuEhZT6Hu/EGCf/ri38+ZeSaX17EMXd=="
  },
  {
    kind: "Sentry token",
    text:
      "Sentry auth token 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 uploads sourcemaps."
  },
  { kind: "New Relic key", text: "New Relic user key NRAK-8J2CC30NPPVG67NPAFHIZ5KXERB for the dashboards." },
  { kind: "Notion token", text: "Notion integration token 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" },
  { kind: "Replicate token", text: "Replicate token r8_U2pGN47UoyAvbZueKRKLg9NRljwzY2TDgngXz for image jobs." },
  { kind: "Groq API key", text: "GROQ key 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" },
  {
    kind: "age secret key",
    text: "The sops age key is AGE-SECRET-KEY-1R9YHXVGQ04X4S95YS4QGS8R4AP6YU0WFYTJMQ9U056JMWVDEJ8MW5EMW68"
  },
  { kind: "Fly.io token", text: "Fly deploy token fo1_MGeP0bT89j0PgIC2e_cWUKqSadnVUmIdiY8S3M8rkJJ" },
  { kind: "Pulumi token", text: "PULUMI_ACCESS_TOKEN is pul-639fac75c3035bd7dac7ad129f2ca682e122288d" },
  { kind: "Supabase key", text: "Supabase management token sbp_59669c4024bbf62f9653ea4e6380c9e0c2d67f30" },
  {
    kind: "Terraform Cloud token",
    text: "TFC token fl98eaepd3ay97.atlasv1.qc5__1r2wrwpbku4gv699qdc4kd7fp0qdr8w92k7py14vhnlt9w7nvg665flial-1r9"
  },
  {
    kind: "1Password service account token",
    text:
      "OP_SERVICE_ACCOUNT_TOKEN=ops_eyJOaN7tofBpmHHONK9LAWfX/9fueJ9rpNvh29hD2fqpH+GPxkAVuzIGIwnht7+2yajGy4Mk6wJYpsDO0ilpNzmJgsJMQ+5MTZvpLtVwzgPa7vpdyIpTndqhEkajmELzajemnbxlmh3LzM/tjv5iJQdda2H/NMMj1gEh7v/e5HLHU/5s2tdxXtLS3oUgbSZTjyzWIlEBh3whZWSBlXlKCpocwkKkr8DMQLUlI0RiNF3ST79FgBA"
  },
  {
    kind: "Twitter bearer token",
    text:
      "Twitter bearer AAAAAAAAAAAAAAAAAAAAAJKt6qDi0kMP7AA4ADDK3VJYps5v34yp9jXj7m7KCWrdYWsQ4tNOCEs4lDYaKC%3DKfCAP8yzoiXWCP2CN6H1BadegcBts5yt24ioAbiOJa3EaYW26G"
  },
  {
    kind: "Cloudflare origin CA key",
    text:
      "Cloudflare origin CA key v1.0-685a948fa88908bbe76fe571-e2914ab23fd0f4db473f4d9fb58216eaee914cd370939c3929dd7442aecc3ce238e3788aaddfb3d4ece17a53955cf624123563c28fda52109069839e89a52e7279dd352f4b0fa37f35"
  },
  {
    kind: "Microsoft Teams webhook",
    text:
      "Teams alerts: https://relay.webhook.office.com/webhookb2/39bd0a6c-1689-10f6-507e-676c6329b74b@2030992d-0ecf-043c-c65a-8e6f42a53ad8/IncomingWebhook/ee36f2e7875bb80bb36a9c6d4be57797/63c5602d"
  },
  {
    kind: "PayPal Braintree token",
    text: "Braintree access_token$production$adb3pd9rj16aq3bn$b9fa644859743cb4852a4a8d4c791402"
  },
  // Command lines (issue 9): passwords typed as arguments.
  { kind: "command-line password", text: "Run mysql -u app -pK7v!q2Zr9x relay_prod to check the table." },
  { kind: "command-line password", text: "mysqldump -uroot -p'Vt8#kLm2Qz' relay > backup.sql" },
  { kind: "command-line password", text: "sshpass -p 'Hq7wZ2kP9m' ssh deploy@10.0.3.12 uptime" },
  { kind: "command-line password", text: "sshpass -pR4nd0mPw!x scp build.tgz ops@bastion:/tmp" },
  { kind: "command-line password", text: "curl -u deploy:Rx8vN2qLk5 https://registry.internal/v2/_catalog" },
  {
    kind: "command-line password",
    text: "curl --user ci-bot:5fygdoqF0r5FU7 -X POST https://jenkins.internal/job/build"
  },
  { kind: "command-line password", text: "curl -s -uadmin:jF4sBJVwieKm http://localhost:15672/api/queues" },
  { kind: "command-line password", text: "docker login --password jF4sBJVwieKm --username relaybot registry.internal" },
  {
    kind: "command-line password",
    text: "mongosh --username admin --password Qm3vT8xZr2Lp --authenticationDatabase admin"
  },
  { kind: "command-line password", text: "redis-cli -h cache.internal -a Bq8wJImjv6bE ping" },
  { kind: "password or secret assignment", text: "psql --host db.internal --password=pwKWPB7ILFz relay" },
  // .env and JSON shapes
  { kind: "password or secret assignment", text: "DB_PASS=Xk9mP2vLq7wZ" },
  { kind: "password or secret assignment", text: "SMTP_PASS=fUpDmO+hlbsW in the mailer's .env" },
  { kind: "password or secret assignment", text: "REDIS_AUTH=EZ5lI3pYB4cwaw5j" },
  { kind: "password or secret assignment", text: "AUTH=tk_8Hq2ZmP0x7LrV4" },
  { kind: "password or secret assignment", text: "{\"user\": \"svc_backup\", \"pass\": \"T9x!mK2pLq\"}" },
  { kind: "password or secret assignment", text: "{\"creds\": \"admin:Qw7Zr2Lp9x\"}" },
  {
    kind: "password or secret assignment",
    text: "{\"name\": \"geocoder\", \"key\": \"pwKWPB7ILFzrUk4KzbvNxIotwkvFXI7B\"}"
  },
  // Keys in URL queries
  {
    kind: "API key in a URL query",
    text: "The forecast call is https://api.weather.example/v1/forecast?q=berlin&key=EZ5lI3pYB4cwaw5jtQHGO5vU"
  },
  {
    kind: "password or secret assignment",
    text: "Notify via https://hooks.internal/notify?channel=ops&token=ZAx0scZuSh9ryh9m2KaS"
  },
  // Headerless EC (SEC1), Ed25519 (PKCS#8) and small RSA bodies; lower-case PEM headers
  {
    kind: "private key block",
    text: "The signing key body is MHcCAQEEIDefpFWGt0zCISe2OEBPJL+uAdYygRcoXYnfrF4jx3KEoAoGCCqGSM49AwEHoUQDQgAE"
  },
  { kind: "private key block", text: "Ed25519 key: MC4CAQAwBQYDK2VwBCIEIIXiikQDQZ4et/RQOKv0HScB96zYgRWmubKhyrM0Ym/4" },
  { kind: "private key block", text: "The P-384 signer uses MIGkAgEBBDDvFMfLsuj7ZkS0pQx2w3N5 (truncated)." },
  { kind: "private key block", text: "Legacy RSA-1024 key MIICXgIBAAKBgQC6vUoqTq0Rk3Jz still signs the old tokens." },
  { kind: "private key block", text: "The export came out as -----begin rsa private key----- in lower case." },
  { kind: "private key block", text: "-----Begin Private Key-----" },
  // One invisible character inside the secret (the test also inserts them into every credential)
  { kind: "GitHub token", text: "Use the deploy token ghp_hIFCr\u200bMQKrie5yGH6qlqrSGlCkaP1mTWMY8EJ for CI." },
  { kind: "private key block", text: "-----BEGIN RSA PRIV\u00adATE KEY----- MIIEowIBAAKCAQEAaHSYcdZJddcLA6tjP273q70" },
  {
    kind: "JWT",
    text:
      "The cookie was eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSIsImlhdCI6MTcxNjIzOTAyMn0\u2060.bsodVQZPFv87WSsPPDpvGHA33peFcwIhKYDPTZzMD2C"
  },
  { kind: "password or secret assignment", text: "pass\u200bword=Xk9#mP2vLq7!wZ" },
  { kind: "command-line password", text: "mysql -u app -pK7v!q2\u{e0041}Zr9x relay_prod" },
  { kind: "AWS access key id", text: "Use AKIAIXPRX\ufeffOUYC3DMUK5K with region eu-west-1." },
  // Confusable spaces and fullwidth letters
  { kind: "private key block", text: "BEGIN\u00a0RSA\u2009PRIVATE KEY" },
  { kind: "password or secret assignment", text: "DB_PASSWORD\u3000=\u00a0Xk9#mP2vLq7!wZ" },
  { kind: "GitHub token", text: "\uff47\uff48\uff50\uff3fhIFCrMQKrie5yGH6qlqrSGlCkaP1mTWMY8EJ" }
]

/**
 * Ordinary engineering facts that must never be taken for secrets: they mention passwords,
 * tokens, keys and secrets, and carry hashes, ids, versions, URLs and paths.
 */
export const ordinary: ReadonlyArray<string> = [
  // sentences that merely mention the words
  "We rotate the database password monthly.",
  "The password reset flow uses a 6-digit code that expires after 10 minutes.",
  "The API uses a token bucket rate limiter with 120 calls per minute.",
  "Set api_key in the env file before running the importer.",
  "password=<redacted>",
  "The secret is stored in Vault under kv/relay/prod.",
  "Passwords are hashed with argon2id (m=65536, t=3, p=4).",
  "The access token lifetime is 15 minutes and the refresh token lifetime is 30 days.",
  "GitHub classic tokens start with ghp_ and fine-grained ones with github_pat_.",
  "Slack bot tokens begin with xoxb- and user tokens with xoxp-.",
  "Stripe publishable keys (pk_live_) are safe in the browser; secret keys are not.",
  "AWS access key ids start with AKIA and temporary ones with ASIA.",
  "Never commit a file containing -----BEGIN or PRIVATE material; use the secrets manager.",
  "The token is expired, so the client refreshes it and retries once.",
  "Our password policy requires at least 12 characters.",
  "The secret: never log request bodies in the auth service.",
  "Rotate the JWT signing key whenever an engineer leaves the team.",
  "The tokenizer is cl100k_base and max_tokens=4096 for summaries.",
  "Use the --password-stdin flag with docker login instead of -p.",
  "The primary key of the facts table is (graph, id).",
  // configuration that references secrets without containing one
  "password: ${DB_PASSWORD}",
  "token: ${{ secrets.GITHUB_TOKEN }}",
  "api_key = os.environ[\"OPENAI_API_KEY\"]",
  "const apiKey = process.env.ANTHROPIC_API_KEY",
  "FALKORDB_PASSWORD=changeme in the sample .env file.",
  "secret: '***'",
  "\"password\": \"<your password here>\"",
  "password_file: /run/secrets/db_password",
  "token_url: https://oauth2.googleapis.com/token",
  "secretName: relay-db-credentials",
  "secret: relay-db-credentials",
  "token_ttl=3600",
  "token: 42",
  "apiKey: Config.redacted(\"API_KEY\")",
  "password: z.string().min(12)",
  "credentials: same-origin",
  "The client_secret is read from settings.OIDC_CLIENT_SECRET at startup.",
  "private_key: /etc/ssl/private/relay.key",
  "api_key: YOUR_API_KEY_HERE",
  "password: ********",
  "PWD=/home/dev/relay",
  "The curl example uses Authorization: Basic dXNlcjpwYXNz for user:pass.",
  "Send Authorization: Bearer <token> on every request.",
  // URLs and hosts
  "The dev database is postgres://postgres:postgres@localhost:5432/relay.",
  "The docs show amqp://guest:guest@localhost:5672/ as the default broker URL.",
  "Use postgresql://user:password@host:5432/db as the template connection string.",
  "Clone with git@github.com:relay-dev/relay.git or https://github.com/relay-dev/relay.git.",
  "ssh://deploy@build-01.internal:2222/srv/relay is the release target.",
  "Metrics are at https://grafana.internal:3000/d/abc123/relay?orgId=1&refresh=30s.",
  "The webhook endpoint is https://api.relay.dev/v1/hooks/github.",
  "redis://localhost:6379/0 is the default cache URL.",
  "Mail the on-call at oncall@relay.dev or ops+alerts@relay.dev.",
  // ids, hashes, digests
  "The fact id is 3f2b8c1e-9d4a-4b7e-a1c2-7e5f9b0d6a41.",
  "Reverted commit 9fceb02d0ae598e95dc970b74767f19372d61af8 which broke the migration.",
  "Fixed in a1b2c3d, see also 4e5f6a7b8c9.",
  "SHA-256 of the release tarball: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.",
  "Pin the image as falkordb/falkordb@sha256:3b1f0c7a9e2d4b6c8a0f1e3d5b7c9a2e4f6b8d0c1a3e5f7b9d2c4e6a8b0c1d3e.",
  "The aws deploy pipeline ran at commit 5d41402abc4b2a76b9719d911017c592ae2f1c3d.",
  "Integrity: sha512-Q2hlY2sgdGhhdCB0aGlzIGlzIG5vdCBhIHNlY3JldCwgaXQgaXMgYSBoYXNo==",
  "The md5 of the fixture is d41d8cd98f00b204e9800998ecf8427e.",
  "Trace id 4bf92f3577b34da6a3ce929d0e0e4736, span id 00f067aa0ba902b7.",
  "The AWS account id is 123456789012 and the role is arn:aws:iam::123456789012:role/relay-ci.",
  "The secret ARN is arn:aws:secretsmanager:eu-west-1:123456789012:secret:relay/prod/db-AbCdEf.",
  "The AWS S3 key for the backup is backups/2024/06/01/relay-graph-dump.rdb.",
  "The SSH public key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx3c2RmZ2hqa2xxd2VydHl1aW9wYXNkZmdoamts relay@ci.",
  "The server certificate begins with -----BEGIN CERTIFICATE----- and the public key with -----BEGIN PUBLIC KEY-----.",
  "Base64 of 'hello world' is aGVsbG8gd29ybGQ=.",
  "The Twilio account SID format is AC followed by 32 hex characters.",
  "The sk-learn alias is not a thing; the package is scikit-learn 1.5.0.",
  // versions, dates, paths, names
  "Upgraded effect from 3.21.0 to 3.22.4 and vitest to 3.2.7.",
  "Node 20.19.43 is the minimum; TypeScript 5.9.3 compiles the project.",
  "The migration ran on 2024-06-01T12:30:00Z and took 42 seconds.",
  "Config lives in ~/.config/relay/config.json and logs in /var/log/relay/relay.log.",
  "The Windows build writes to C:\\Users\\dev\\AppData\\Local\\relay\\data.",
  "Install @modelcontextprotocol/sdk and @effect/platform-node.",
  "The brand colour is #1a2b3c with an accent of #ff8800.",
  "The pod relay-api-7f9c4d8b6-x2kqz restarted after the OOM kill.",
  "The Kubernetes secret relay-tls in namespace relay-prod holds the certificate.",
  "Set RELAY_RATE_LIMIT=120 and RELAY_GRAPH=relay_dev for local runs.",
  "The relay.tokens.issued counter doubled after the release.",
  "The session token format is documented in docs/auth/tokens.md.",
  "The Vault path secret/data/relay/prod has two versions.",
  "Use a token with the read:packages scope for the registry.",
  "We store an HMAC-SHA256 of the API key, never the key itself.",
  "The cache key is user:1234:profile and expires after 300 seconds.",
  "Bearer token auth is used for the admin endpoints.",
  "The password hash column is 60 characters wide for bcrypt.",
  "passwordless login is enabled for the staging tenant.",
  "See https://user@example.com/path for the user-scoped view.",
  "mysql://root:@localhost/db works because root has no password locally.",
  "The mirror is ftp://anonymous:anonymous@ftp.example.com/pub.",
  "The token field is a JWT; see RFC 7519.",
  "path: src/services/TokenStore.ts",
  "password: !vault |",
  "image: ghcr.io/relay/relay:v1.2.3@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  "The spinner uses the .sk-spinner-double-bounce-container class.",
  "Our build number token=20240601 comes from the date.",
  // command lines that look close (issue 9)
  "run mysql -p to be prompted for the password",
  "mysql -u root -p relay_dev opens the dev database after the prompt.",
  "mysql -h db.internal -P 3306 -u app -p",
  "mysqldump -u backup -p --single-transaction relay > dump.sql",
  "mysql -uroot -p$MYSQL_ROOT_PASSWORD -e 'select 1'",
  "mysql -u app -p\"${DB_PASS}\" relay",
  "The mysql client reads the password from ~/.my.cnf when -p is not given.",
  "psql -p 5432 -h localhost -U relay",
  "ssh -p 2222 deploy@build-01.internal",
  "curl -u is how we pass basic auth",
  "curl -u user:password https://api.example.com/v1/me",
  "curl -u \"$API_USER:$API_TOKEN\" https://api.example.com",
  "curl -u admin:admin http://localhost:9200 works on the dev box",
  "curl -u elastic: http://localhost:9200 prompts for the password",
  "curl -u deploy:<token> https://registry.internal",
  "curl --user \"$CI_USER:$CI_PASS\" in CI.",
  "curl -u api:${TOKEN} -X GET https://example.com",
  "use --password-stdin",
  "docker login --username relaybot --password-stdin < token.txt",
  "Pass --password with no value to be prompted.",
  "--token $GITHUB_TOKEN is read from the environment",
  "--api-key YOUR_KEY goes in the CI settings",
  "Use --password-file /run/secrets/db to keep it out of ps.",
  "pg_dump --no-password relay > dump.sql",
  "Set --token-ttl 3600 for the session.",
  "The --pass flag was renamed --password in v2.",
  "gh auth login --with-token < mytoken.txt",
  "sshpass -p is a bad idea because the password shows in ps; use sshpass -e with SSHPASS set.",
  "redis-cli -a is insecure; use REDISCLI_AUTH instead.",
  "kubectl create secret generic db --from-literal=password=$(pwgen 20 1)",
  // .env, JSON and YAML that look close
  "set AUTH=oauth in the config",
  "AUTH=none disables login on the local instance.",
  "auth: required",
  "Auth is done by the gateway, not the service.",
  "Auth: OIDC via Keycloak realm relay-prod.",
  "OAUTH_CLIENT_ID=relay-web is public.",
  "DB_PASS=${DB_PASS} is passed through from the host.",
  "DB_PASS is read from the secrets manager at boot.",
  "SMTP_PASS=changeme in .env.example",
  "The bypass flag skips the cache: bypass=true.",
  "compass: north-east",
  "The test pass rate is 98.5% this week.",
  "pass: the build is green",
  "the key is in vault at secret/prod/db",
  "key: value pairs in YAML are case sensitive.",
  "{\"pass\": true, \"fail\": false}",
  "{\"key\": \"user:1234:profile\", \"ttl\": 300}",
  "{\"key\": \"feature.new-billing\", \"enabled\": true}",
  "{\"key\": \"9f86d081884c7d659a2feaa0c55ad015\"}",
  "{\"key\": \"Enter\", \"code\": \"Enter\"}",
  "{\"creds\": \"vault:secret/data/relay#db\"}",
  "{\"creds\": \"from-env\"}",
  // URL queries with placeholders or plain values
  "The example URL is https://maps.example.com/api?key=YOUR_API_KEY&q=berlin",
  "https://api.example.com/v1/search?key=value&token=<token>",
  "Sort with ?key=created_at&order=desc.",
  "GET /v1/items?page=2&per_page=50&sort=key",
  "The key rotation runbook is at https://wiki.internal/ops?key=rotation-runbook",
  "The query string ?api_key= is deprecated; send the x-api-key header.",
  // key material words and public-key bodies
  "We begin by generating a private key with openssl genpkey.",
  "begin with the private key rotation, then the certificates",
  "the file starts with -----begin certificate----- in lower case",
  "The public key body starts with MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE for P-256.",
  "Ed25519 public keys in SPKI start with MCowBQYDK2VwAyEA.",
  // text with ordinary non-ASCII spacing and joiners
  "Caf\u00e9\u00a0Relay is the team's name for the staging box.",
  "\u{1f468}\u200d\u{1f469}\u200d\u{1f467} emoji ZWJ sequences render as one glyph.",
  "The price is 10\u202f000\u00a0\u20ac per year, token budget included."
]

/**
 * Invisible characters to hide inside words: zero-width space/non-joiner/joiner, soft hyphen,
 * word joiner, BOM, Mongolian vowel separator, invisible times, Arabic letter mark, a tag
 * character, a variation selector, LRM, the combining grapheme joiner, a Hangul filler, a C1 control.
 */
export const invisibles: ReadonlyArray<string> = [
  "\u200b",
  "\u00ad",
  "\u2060",
  "\u200c",
  "\u200d",
  "\ufeff",
  "\u180e",
  "\u2062",
  "\u061c",
  "\u{e0041}",
  "\ufe0f",
  "\u200e",
  "\u034f",
  "\u3164",
  "\u009b"
]

/** `text` with one invisible character in the middle of every word of 4+ characters. */
export const withInvisibles = (text: string, seed = 0): string => {
  let n = seed
  return text.replace(/\S{4,}/g, (word) => {
    const chars = Array.from(word)
    const mid = Math.floor(chars.length / 2)
    return [...chars.slice(0, mid), invisibles[n++ % invisibles.length], ...chars.slice(mid)].join("")
  })
}
