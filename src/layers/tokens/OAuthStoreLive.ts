import { Clock, Effect, Layer, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { GraphDatabase } from "../../services/GraphDatabase.js"
import { type OAuthClient, OAuthStore } from "../../services/OAuthStore.js"
import { TokenGraphLive } from "./TokenStoreLive.js"

const ClientRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  redirect_uris: Schema.Array(Schema.String),
  issued_at: Schema.Number
})
const toClient = (r: typeof ClientRow.Type): OAuthClient => ({
  clientId: r.id,
  name: r.name,
  redirectUris: r.redirect_uris,
  issuedAt: r.issued_at
})
const CodeRow = Schema.Struct({
  client_id: Schema.String,
  redirect_uri: Schema.String,
  challenge: Schema.String,
  resource: Schema.String,
  token_id: Schema.String
})
const GrantRow = Schema.Struct({
  client_id: Schema.String,
  resource: Schema.String,
  token_id: Schema.String,
  family: Schema.String,
  used_at: Schema.NullOr(Schema.Number)
})
const AccessRow = Schema.Struct({
  client_id: Schema.String,
  resource: Schema.String,
  token_id: Schema.String,
  name: Schema.String,
  workspace: Schema.String,
  read_only: Schema.Boolean
})
const Count = Schema.Struct({ n: Schema.Number })
const toCode = (r: typeof CodeRow.Type) => ({
  clientId: r.client_id,
  redirectUri: r.redirect_uri,
  challenge: r.challenge,
  resource: r.resource,
  tokenId: r.token_id
})

const clientFields = "c.id AS id, c.name AS name, c.redirect_uris AS redirect_uris, c.issued_at AS issued_at"
const codeFields = "c.client_id AS client_id, c.redirect_uri AS redirect_uri, c.challenge AS challenge, " +
  "c.resource AS resource, c.token_id AS token_id"
const liveCode = "c.client_id = $client AND c.used_at IS NULL AND c.expires_at > $at"
const liveRefresh = "g.kind = 'refresh' AND g.client_id = $client AND g.revoked_at IS NULL AND g.expires_at > $at"
/** The Relay token a grant acts as is still unrevoked (a revoked one ends its codes and chains at once). */
const liveToken = (node: string) =>
  `WITH ${node} MATCH (t:Token {id: ${node}.token_id}) WHERE t.revoked_at IS NULL WITH ${node}`

export const makeOAuthStore = Effect.gen(function*() {
  const db = yield* GraphDatabase
  for (
    const index of [
      "(c:OAuthClient) ON (c.id)",
      // Makes the label exist before the key's MERGE is planned: two edges starting on a new store
      // at once would each make a registration key (graphIndexes.ts says why).
      "(k:OAuthKey) ON (k.name)",
      "(c:OAuthCode) ON (c.hash)",
      "(g:OAuthToken) ON (g.hash)",
      "(g:OAuthToken) ON (g.client_id)"
    ]
  ) {
    yield* db.write(`CREATE INDEX FOR ${index}`).pipe(
      Effect.asVoid,
      Effect.catchIf((e) => e.reason === "exists", () => Effect.void)
    )
  }
  const now = Clock.currentTimeMillis

  const revokeFamily = (family: string, at: number) =>
    db.write(
      "MATCH (g:OAuthToken {family: $family}) WHERE g.revoked_at IS NULL SET g.revoked_at = $at",
      { family, at }
    )

  return OAuthStore.of({
    client: (clientId) =>
      db.read(
        `MATCH (c:OAuthClient {id: $id}) RETURN ${clientFields}`,
        { id: clientId },
        ClientRow
      ).pipe(Effect.map((rows) => rows[0] === undefined ? null : toClient(rows[0]))),

    approveClient: (client, limits) =>
      Effect.gen(function*() {
        const known = yield* db.read(
          `MATCH (c:OAuthClient {id: $id}) RETURN ${clientFields}`,
          { id: client.clientId },
          ClientRow
        )
        if (known[0] !== undefined) return toClient(known[0])
        const at = yield* now
        const count = () =>
          db.read("MATCH (c:OAuthClient) RETURN count(c) AS n", {}, Count).pipe(Effect.map((r) => r[0]?.n ?? 0))
        if ((yield* count()) >= limits.maxClients) {
          // Bounded: the registry holds at most maxClients, and each has at most a few live chains.
          yield* db.write(
            "MATCH (c:OAuthClient) WHERE c.issued_at < $before " +
              "OPTIONAL MATCH (g:OAuthToken {client_id: c.id}) WHERE g.kind = 'refresh' AND g.revoked_at IS NULL " +
              "AND g.expires_at > $at WITH c, count(g) AS live WHERE live = 0 " +
              "WITH c LIMIT 10000 DETACH DELETE c",
            { before: at - limits.idleMillis, at }
          )
          if ((yield* count()) >= limits.maxClients) return null
        }
        yield* db.write(
          "MERGE (c:OAuthClient {id: $id}) ON CREATE SET c.name = $name, c.redirect_uris = $uris, c.issued_at = $at",
          { id: client.clientId, name: client.name, uris: [...client.redirectUris], at }
        )
        return { ...client, issuedAt: at }
      }),

    registrationKey: Effect.gen(function*() {
      const rows = yield* db.write(
        "MERGE (k:OAuthKey {name: 'client-registration'}) ON CREATE SET k.secret = $secret RETURN k.secret AS secret",
        { secret: randomBytes(32).toString("base64url") },
        Schema.Struct({ secret: Schema.String })
      )
      return rows[0]!.secret
    }),

    saveCode: (codeHash, grant, expiresAt) =>
      db.write(
        "CREATE (:OAuthCode {hash: $hash, client_id: $client, redirect_uri: $redirect, challenge: $challenge, " +
          "resource: $resource, token_id: $token, expires_at: $expires})",
        {
          hash: codeHash,
          client: grant.clientId,
          redirect: grant.redirectUri,
          challenge: grant.challenge,
          resource: grant.resource,
          token: grant.tokenId,
          expires: expiresAt
        }
      ),

    peekCode: (codeHash, clientId) =>
      Effect.flatMap(now, (at) =>
        db.read(
          `MATCH (c:OAuthCode {hash: $hash}) WHERE ${liveCode} ${liveToken("c")} RETURN ${codeFields}`,
          { hash: codeHash, client: clientId, at },
          CodeRow
        )).pipe(Effect.map((rows) => rows[0] === undefined ? null : toCode(rows[0]))),

    takeCode: (codeHash, clientId) =>
      Effect.flatMap(now, (at) =>
        // One statement: of two exchanges of the same code, only one sees used_at still null.
        db.write(
          `MATCH (c:OAuthCode {hash: $hash}) WHERE ${liveCode} ${liveToken("c")} SET c.used_at = $at ` +
            `RETURN ${codeFields}`,
          { hash: codeHash, client: clientId, at },
          CodeRow
        )).pipe(Effect.map((rows) => rows[0] === undefined ? null : toCode(rows[0]))),

    saveTokens: (pair, grant) =>
      db.write(
        "CREATE (:OAuthToken {hash: $access, kind: 'access', client_id: $client, resource: $resource, token_id: $token, " +
          "family: $family, expires_at: $accessExpires}), " +
          "(:OAuthToken {hash: $refresh, kind: 'refresh', client_id: $client, resource: $resource, token_id: $token, " +
          "family: $family, expires_at: $refreshExpires})",
        {
          access: pair.accessHash,
          refresh: pair.refreshHash,
          client: grant.clientId,
          resource: grant.resource,
          token: grant.tokenId,
          family: grant.family,
          accessExpires: pair.accessExpiresAt,
          refreshExpires: pair.refreshExpiresAt
        }
      ),

    peekRefresh: (refreshHash, clientId) =>
      Effect.flatMap(now, (at) =>
        db.read(
          `MATCH (g:OAuthToken {hash: $hash}) WHERE ${liveRefresh} ` +
            "RETURN g.client_id AS client_id, g.resource AS resource, g.token_id AS token_id, g.family AS family, " +
            "g.used_at AS used_at",
          { hash: refreshHash, client: clientId, at },
          GrantRow
        )).pipe(Effect.map((rows) => {
          const r = rows[0]
          return r === undefined
            ? null
            : { clientId: r.client_id, resource: r.resource, tokenId: r.token_id, family: r.family }
        })),

    takeRefresh: (refreshHash, clientId) =>
      Effect.gen(function*() {
        const at = yield* now
        // A chain whose Relay token was revoked ends here too, not only at the access tokens it yields.
        const rows = yield* db.write(
          `MATCH (g:OAuthToken {hash: $hash}) WHERE ${liveRefresh} ${liveToken("g")} ` +
            "WITH g, g.used_at AS used_at SET g.used_at = coalesce(g.used_at, $at) " +
            "RETURN g.client_id AS client_id, g.resource AS resource, g.token_id AS token_id, g.family AS family, used_at",
          { hash: refreshHash, client: clientId, at },
          GrantRow
        )
        const r = rows[0]
        if (r === undefined) return null
        if (r.used_at !== null) {
          yield* revokeFamily(r.family, at)
          return null
        }
        return { clientId: r.client_id, resource: r.resource, tokenId: r.token_id, family: r.family }
      }),

    access: (accessHash) =>
      Effect.flatMap(now, (at) =>
        db.read(
          "MATCH (g:OAuthToken {hash: $hash}) WHERE g.kind = 'access' AND g.revoked_at IS NULL AND g.expires_at > $at " +
            "MATCH (t:Token {id: g.token_id}) WHERE t.revoked_at IS NULL " +
            "RETURN g.client_id AS client_id, g.resource AS resource, t.id AS token_id, t.name AS name, " +
            "t.workspace AS workspace, t.read_only AS read_only",
          { hash: accessHash, at },
          AccessRow
        )).pipe(Effect.map((rows) => {
          const r = rows[0]
          return r === undefined ? null : {
            clientId: r.client_id,
            resource: r.resource,
            // An approver token never signs a client in (the consent page refuses it): never an approver here.
            caller: {
              tokenId: r.token_id,
              name: r.name,
              workspace: r.workspace,
              readOnly: r.read_only,
              approver: false
            }
          }
        })),

    revoke: (hash, clientId) =>
      Effect.gen(function*() {
        const at = yield* now
        const rows = yield* db.read(
          "MATCH (g:OAuthToken {hash: $hash}) WHERE g.client_id = $client RETURN g.family AS family",
          { hash, client: clientId },
          Schema.Struct({ family: Schema.String })
        )
        if (rows[0] !== undefined) yield* revokeFamily(rows[0].family, at)
      })
  })
})

/** The OAuth store in the admin graph, on the database endpoint the stack gives it. */
export const OAuthStoreLive = Layer.effect(OAuthStore, makeOAuthStore).pipe(Layer.provide(TokenGraphLive))
