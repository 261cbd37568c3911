/**
 * API keys. A key is `todo_` + 32 random bytes (base64url); only its SHA-256 hex digest is
 * stored, so a database dump reveals no usable key. Keys are looked up by digest. A key may carry
 * an expiry; whether it has passed is decided by the caller's clock (injectable), not by SQL, so
 * tests can move time.
 * @module
 */
import { encodeBase64 } from "@svc/shared/base64";
import { sha256Hex } from "@svc/shared/sha256";
import type { Queryable } from "../store/db.ts";
import type { Position } from "../todos/todo_store.ts";

/** What a key authenticates as. */
export interface Principal {
  /** Who the key belongs to. */
  subject: string;
  /** The key's roles (`user`, `admin`, …). */
  roles: string[];
  /** When the key stops working (epoch ms), if it expires. */
  expiresAtMs?: number;
}

/** An operator's view of a key (never the key or its full digest). */
export interface ApiKeyRecord {
  /** The key's id (for revoking). */
  id: string;
  /** Who the key belongs to. */
  subject: string;
  /** The key's roles. */
  roles: string[];
  /** When it was created (RFC 3339, microseconds). */
  createdAt: string;
  /** When it stops working (RFC 3339), if it expires. */
  expiresAt?: string;
  /** When it was revoked (RFC 3339), if it was. */
  revokedAt?: string;
  /** The first 12 hex characters of the key's digest, to tell keys apart. */
  digestPrefix: string;
}

/** What a new key is made of. */
export interface NewKey {
  /** Who the key acts as: the owner of the todos it creates. */
  subject: string;
  /** The roles it grants (such as `admin`); each matches `[a-z][a-z0-9_-]{0,31}`. */
  roles: string[];
  /** RFC 3339 date-time after which the key stops working. */
  expiresAt?: string;
}

const ROLE = /^[a-z][a-z0-9_-]{0,31}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The role-name rule, as a JSON Schema pattern too. */
export const ROLE_PATTERN = ROLE.source;

/** Characters shown of a digest: enough to tell keys apart, far too few to find a key. */
const DIGEST_PREFIX_LENGTH = 12;

/** SHA-256 hex digest of a presented key (the kit's synchronous SHA-256: cheap per request). */
export function keyDigest(key: string): string {
  return sha256Hex(key);
}

/** Whether a string can be a key id (the column is a uuid; anything else cannot exist). */
function isKeyId(id: string): boolean {
  return UUID.test(id);
}

function newKey(random: (bytes: Uint8Array) => void): string {
  const bytes = new Uint8Array(32);
  random(bytes);
  return "todo_" + encodeBase64(bytes, { url: true });
}

/** Checks a role name; returns a reason or undefined. */
function roleProblem(role: string): string | undefined {
  return ROLE.test(role) ? undefined : `invalid role ${JSON.stringify(role)}: use [a-z][a-z0-9_-]*`;
}

interface KeyRow extends Record<string, unknown> {
  id: string;
  subject: string;
  roles: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  digest: string;
}

const RFC3339_US = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;
const COLUMNS = `id::text as id, subject, array_to_string(roles, ',') as roles, digest,
  to_char(created_at at time zone 'UTC', ${RFC3339_US}) as "createdAt",
  to_char(expires_at at time zone 'UTC', ${RFC3339_US}) as "expiresAt",
  to_char(revoked_at at time zone 'UTC', ${RFC3339_US}) as "revokedAt"`;

function recordOf(r: KeyRow): ApiKeyRecord {
  const record: ApiKeyRecord = {
    id: r.id,
    subject: r.subject,
    roles: r.roles.split(","),
    createdAt: r.createdAt,
    digestPrefix: r.digest.slice(0, DIGEST_PREFIX_LENGTH),
  };
  if (r.expiresAt) record.expiresAt = r.expiresAt;
  if (r.revokedAt) record.revokedAt = r.revokedAt;
  return record;
}

/**
 * The Postgres channel a revocation is announced on (`pg_notify`), so every server process on the
 * database drops its key cache at once, not only after its TTL.
 */
export const KEY_CHANGES_CHANNEL = "todo_api_key_changes";

/** A key's state at `nowMs`: revoked wins over expired. */
export function keyStatus(record: ApiKeyRecord, nowMs: number): "active" | "revoked" | "expired" {
  if (record.revokedAt) return "revoked";
  if (record.expiresAt && Date.parse(record.expiresAt) <= nowMs) return "expired";
  return "active";
}

/** Operator and authentication access to stored keys. */
export interface ApiKeyStore {
  /** Stores a new key and returns it; the plaintext is never retrievable again. */
  create(key: NewKey): Promise<{ key: string; id: string; record: ApiKeyRecord }>;
  /** The principal of an unrevoked key with this digest, if any (expiry is the caller's check). */
  findByDigest(digest: string): Promise<Principal | undefined>;
  /** One key by id. */
  get(id: string): Promise<ApiKeyRecord | undefined>;
  /** Keys oldest first, after `after` (exclusive); `more` when another page exists. */
  page(options: { limit: number; after?: Position }): Promise<
    { keys: ApiKeyRecord[]; more: boolean }
  >;
  /** Every key, active and revoked. */
  list(): Promise<ApiKeyRecord[]>;
  /**
   * Revokes by id, keeping the first `revokedAt` of a key revoked before. `changed` says whether
   * this call revoked it; undefined when no key has that id.
   */
  revoke(id: string): Promise<{ record: ApiKeyRecord; changed: boolean } | undefined>;
}

/** SQL for API keys. `random` is injectable for tests. */
export function createApiKeyStore(
  db: Queryable,
  options: { random?: (bytes: Uint8Array) => void } = {},
): ApiKeyStore {
  const random = options.random ?? ((b: Uint8Array) => crypto.getRandomValues(b));
  async function page(options: { limit: number; after?: Position }) {
    const params: unknown[] = [options.limit + 1];
    let where = "";
    if (options.after) {
      params.push(options.after.createdAt, options.after.id);
      where = "where (created_at, id) > ($2::text::timestamptz, $3::uuid)";
    }
    const rows = await db.query<KeyRow>(
      `select ${COLUMNS} from api_keys ${where}
       order by api_keys.created_at, api_keys.id limit $1`,
      params,
    );
    return { keys: rows.slice(0, options.limit).map(recordOf), more: rows.length > options.limit };
  }
  async function get(id: string): Promise<ApiKeyRecord | undefined> {
    if (!isKeyId(id)) return undefined;
    const [row] = await db.query<KeyRow>(`select ${COLUMNS} from api_keys where id = $1`, [id]);
    return row && recordOf(row);
  }
  return {
    async create(input: NewKey) {
      const length = [...input.subject].length; // characters, as the column's CHECK counts
      if (length < 1 || length > 200) {
        throw new RangeError("Cannot create key: subject must be 1 to 200 characters");
      }
      if (input.roles.length === 0) throw new RangeError("Cannot create key: no role given");
      for (const role of input.roles) {
        const problem = roleProblem(role);
        if (problem) throw new RangeError(`Cannot create key: ${problem}`);
      }
      const key = newKey(random);
      const [row] = await db.query<KeyRow>(
        `insert into api_keys (digest, subject, roles, expires_at)
         values ($1, $2, string_to_array($3, ','), $4::text::timestamptz)
         returning ${COLUMNS}`,
        [keyDigest(key), input.subject, input.roles.join(","), input.expiresAt ?? null],
      );
      return { key, id: row.id, record: recordOf(row) };
    },

    async findByDigest(digest: string): Promise<Principal | undefined> {
      const [row] = await db.query<{ subject: string; roles: string; expiresAtMs: unknown }>(
        `select subject, array_to_string(roles, ',') as roles,
           (extract(epoch from expires_at) * 1000)::float8 as "expiresAtMs"
         from api_keys where digest = $1 and revoked_at is null`,
        [digest],
      );
      if (!row) return undefined;
      const principal: Principal = { subject: row.subject, roles: row.roles.split(",") };
      // Absent (not only null) when a stand-in database (the benchmark's) leaves the column out.
      if (row.expiresAtMs !== null && row.expiresAtMs !== undefined) {
        principal.expiresAtMs = Number(row.expiresAtMs);
      }
      return principal;
    },

    get,

    page,

    async list(): Promise<ApiKeyRecord[]> {
      const rows = await db.query<KeyRow>(
        `select ${COLUMNS} from api_keys order by api_keys.created_at, api_keys.id`,
      );
      return rows.map(recordOf);
    },

    async revoke(id: string) {
      if (!isKeyId(id)) return undefined;
      // A concurrent revoke's update finds the key revoked: only one caller sees `changed`.
      const [updated] = await db.query<KeyRow>(
        `update api_keys set revoked_at = now() where id = $1 and revoked_at is null
         returning ${COLUMNS}`,
        [id],
      );
      if (updated) {
        // After the commit (autocommit): listeners must not refetch the old row. The payload is
        // the key's id only, nothing secret.
        await db.query("select pg_notify($1, $2)", [KEY_CHANGES_CHANNEL, updated.id]);
        return { record: recordOf(updated), changed: true };
      }
      const record = await get(id);
      return record && { record, changed: false };
    },
  };
}
