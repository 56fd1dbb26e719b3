import { Clock, Config, Effect, Layer, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { InvalidInput } from "../../domain/errors.js"
import { type Caller, formatToken, hashToken, parseToken, tokenMatches, type TokenRecord } from "../../domain/tokens.js"
import { retryTransient } from "../../policies/retry.js"
import { Database, GraphDatabase } from "../../services/GraphDatabase.js"
import { TokenStore, type TokenStoreShape } from "../../services/TokenStore.js"

/** The admin graph the tokens live in: apart from every workspace, so no tool query can reach it. */
export const tokenGraph = Config.string("RELAY_TOKEN_GRAPH").pipe(
  Config.withDefault("relay_tokens"),
  Config.validate({
    message: "RELAY_TOKEN_GRAPH must be 1-64 letters, digits, '_' or '-', and not start with relay_ws_",
    validation: (s) => /^[A-Za-z0-9_-]{1,64}$/.test(s) && !s.startsWith("relay_ws_")
  })
)

const Row = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  workspace: Schema.String,
  read_only: Schema.Boolean,
  // Tokens made before approvers existed have no flag: not approvers.
  approver: Schema.NullOr(Schema.Boolean),
  created_at: Schema.Number,
  revoked_at: Schema.NullOr(Schema.Number)
})
type Row = typeof Row.Type

const RowWithHash = Schema.Struct({ ...Row.fields, hash: Schema.String })

const fields =
  "t.id AS id, t.name AS name, t.workspace AS workspace, t.read_only AS read_only, t.approver AS approver, " +
  "t.created_at AS created_at, t.revoked_at AS revoked_at"

const toRecord = (r: Row): TokenRecord => ({
  id: r.id,
  name: r.name,
  workspace: r.workspace,
  readOnly: r.read_only,
  approver: r.approver === true,
  createdAt: r.created_at,
  revokedAt: r.revoked_at
})

const makeTokenStore = Effect.gen(function*() {
  const db = yield* GraphDatabase
  // Two CLIs may race to make the index: the loser's "already indexed" is the outcome both wanted.
  // A transient failure (a busy server at a CLI's start) is tried again, as a tool's would be.
  yield* db.write("CREATE INDEX FOR (t:Token) ON (t.id)").pipe(
    Effect.asVoid,
    Effect.catchIf((e) => e.reason === "exists", () => Effect.void),
    retryTransient
  )
  const store: TokenStoreShape = {
    create: ({ approver = false, name, readOnly, workspace }) =>
      Effect.gen(function*() {
        const id = randomBytes(8).toString("hex")
        const token = formatToken(id, randomBytes(32).toString("base64url"))
        const now = yield* Clock.currentTimeMillis
        const taken = yield* db.read(
          "MATCH (t:Token) WHERE t.revoked_at IS NULL AND toLower(t.name) = $key AND t.name <> $name " +
            "RETURN t.name AS name LIMIT 1",
          { key: name.toLowerCase(), name },
          Schema.Struct({ name: Schema.String })
        )
        if (taken[0] !== undefined) {
          return yield* new InvalidInput({
            message: `name: differs only in case from the token name ${taken[0].name}; names compare ` +
              `without case, so use that name or another`
          })
        }
        // MERGE on the id made once above: a try that timed out but landed is found, not doubled.
        yield* db.write(
          "MERGE (t:Token {id: $id}) ON CREATE SET t.name = $name, t.workspace = $workspace, " +
            "t.read_only = $readOnly, t.approver = $approver, t.hash = $hash, t.created_at = $now",
          { id, name, workspace, readOnly, approver, hash: hashToken(token), now }
        ).pipe(retryTransient)
        return { token, record: { id, name, workspace, readOnly, approver, createdAt: now, revokedAt: null } }
      }),
    list: db.read(`MATCH (t:Token) RETURN ${fields} ORDER BY t.created_at`, {}, Row).pipe(
      Effect.map((rows) => rows.map(toRecord))
    ),
    revoke: (key) =>
      Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) =>
          db.write(
            "MATCH (t:Token) WHERE (t.id = $key OR t.name = $key) AND t.revoked_at IS NULL " +
              "SET t.revoked_at = $now RETURN t.id AS id",
            { key, now },
            Schema.Struct({ id: Schema.String })
          )
        ),
        Effect.map((rows) => rows.map((r) => r.id))
      ),
    verify: (presented) => {
      const parsed = parseToken(presented)
      if (parsed === null) return Effect.succeed(null)
      return db.read(`MATCH (t:Token {id: $id}) RETURN ${fields}, t.hash AS hash`, { id: parsed.id }, RowWithHash).pipe(
        Effect.map((rows): Caller | null => {
          const row = rows[0]
          if (row === undefined || !tokenMatches(parsed.token, row.hash) || row.revoked_at !== null) return null
          return {
            tokenId: row.id,
            name: row.name,
            workspace: row.workspace,
            readOnly: row.read_only,
            approver: row.approver === true
          }
        })
      )
    }
  }
  return store
})

/** The admin graph (RELAY_TOKEN_GRAPH) of the stack's database. */
export const TokenGraphLive = Layer.effect(
  GraphDatabase,
  Effect.map(Effect.all([Database, tokenGraph]), ([database, graph]) => database.graph(graph))
)

/** The token store in the admin graph. */
export const TokenStoreLive = Layer.effect(TokenStore, makeTokenStore).pipe(Layer.provide(TokenGraphLive))
