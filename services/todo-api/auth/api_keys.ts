/**
 * API keys. A key is `todo_` + 32 random bytes (base64url); only its SHA-256 hex digest is
 * stored, so a database dump reveals no usable key. Keys are looked up by digest.
 * @module
 */
import { sha256Hex } from "@svc/shared/sha256";
import type { Queryable } from "../store/db.ts";

/** What a key authenticates as. */
export interface Principal {
  /** Who the key belongs to. */
  subject: string;
  /** The key's roles (`user`, `admin`, …). */
  roles: string[];
}

/** An operator's view of a key (never the key or its full digest). */
export interface ApiKeyRecord {
  /** The key's id (for `keys revoke`). */
  id: string;
  /** Who the key belongs to. */
  subject: string;
  /** The key's roles. */
  roles: string[];
  /** When it was created (ISO 8601). */
  createdAt: string;
  /** When it was revoked (ISO 8601), if it was. */
  revokedAt?: string;
  /** The first characters of the key's digest, to tell keys apart. */
  digestPrefix: string;
}

const ROLE = /^[a-z][a-z0-9_-]{0,31}$/;

/** SHA-256 hex digest of a presented key (the kit's synchronous SHA-256: cheap per request). */
export function keyDigest(key: string): Promise<string> {
  return Promise.resolve(sha256Hex(key));
}

function newKey(random: (bytes: Uint8Array) => void): string {
  const bytes = new Uint8Array(32);
  random(bytes);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return "todo_" + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
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
  revokedAt: string | null;
  digest: string;
}

/** Operator and authentication access to stored keys. */
export interface ApiKeyStore {
  /** Stores a new key and returns it; the plaintext is never retrievable again. */
  create(principal: Principal): Promise<{ key: string; id: string }>;
  /** The principal of an active key with this digest, if any. */
  findByDigest(digest: string): Promise<Principal | undefined>;
  /** Every key, active and revoked. */
  list(): Promise<ApiKeyRecord[]>;
  /** Revokes by id; false when no active key has that id. */
  revoke(id: string): Promise<boolean>;
}

/** SQL for API keys. `random` is injectable for tests. */
export function createApiKeyStore(
  db: Queryable,
  options: { random?: (bytes: Uint8Array) => void } = {},
): ApiKeyStore {
  const random = options.random ?? ((b: Uint8Array) => crypto.getRandomValues(b));
  return {
    /** Stores a new key and returns it; the plaintext is never retrievable again. */
    async create(principal: Principal): Promise<{ key: string; id: string }> {
      if (principal.subject.length < 1 || principal.subject.length > 200) {
        throw new RangeError("Cannot create key: subject must be 1 to 200 characters");
      }
      if (principal.roles.length === 0) throw new RangeError("Cannot create key: no role given");
      for (const role of principal.roles) {
        const problem = roleProblem(role);
        if (problem) throw new RangeError(`Cannot create key: ${problem}`);
      }
      const key = newKey(random);
      const [row] = await db.query<{ id: string }>(
        `insert into api_keys (digest, subject, roles) values ($1, $2, string_to_array($3, ','))
         returning id::text as id`,
        [await keyDigest(key), principal.subject, principal.roles.join(",")],
      );
      return { key, id: row.id };
    },

    /** The principal of an active key with this digest, if any. */
    async findByDigest(digest: string): Promise<Principal | undefined> {
      const [row] = await db.query<{ subject: string; roles: string }>(
        `select subject, array_to_string(roles, ',') as roles from api_keys
         where digest = $1 and revoked_at is null`,
        [digest],
      );
      return row && { subject: row.subject, roles: row.roles.split(",") };
    },

    async list(): Promise<ApiKeyRecord[]> {
      const rows = await db.query<KeyRow>(
        `select id::text as id, subject, array_to_string(roles, ',') as roles, digest,
           to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "createdAt",
           to_char(revoked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "revokedAt"
         from api_keys order by created_at, id`,
      );
      return rows.map((r) => ({
        id: r.id,
        subject: r.subject,
        roles: r.roles.split(","),
        createdAt: r.createdAt,
        ...(r.revokedAt ? { revokedAt: r.revokedAt } : {}),
        digestPrefix: r.digest.slice(0, 12),
      }));
    },

    /** Revokes by id; false when no active key has that id. */
    async revoke(id: string): Promise<boolean> {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return false;
      const rows = await db.query(
        "update api_keys set revoked_at = now() where id = $1 and revoked_at is null returning id",
        [id],
      );
      return rows.length === 1;
    },
  };
}
