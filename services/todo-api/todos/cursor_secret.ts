/**
 * Where the cursor HMAC key comes from: the `cursor-secret` setting when an operator sets one
 * (e.g. to rotate it), else a random 32-byte key stored in `server_secrets` by the first server
 * that needs it. Every replica on the same database then signs and accepts the same cursors, and
 * cursors survive restarts. Rotating the key (deleting the row or changing the setting)
 * invalidates outstanding cursors; clients get 400 and start over.
 * @module
 */
import type { Queryable } from "../store/db.ts";

const NAME = "cursor_hmac";

/** Returns the key bytes, creating the stored key on first use. */
export async function loadCursorSecret(
  db: Queryable,
  options: { configured?: string; random?: (bytes: Uint8Array) => void } = {},
): Promise<Uint8Array> {
  if (options.configured) return new TextEncoder().encode(options.configured);
  const fresh = new Uint8Array(32);
  (options.random ?? ((b) => crypto.getRandomValues(b)))(fresh);
  const hex = Array.from(fresh, (b) => b.toString(16).padStart(2, "0")).join("");
  // Two replicas racing here both end up reading the single winning row.
  await db.query(
    "insert into server_secrets (name, value) values ($1, $2) on conflict (name) do nothing",
    [NAME, hex],
  );
  const [row] = await db.query<{ value: string }>(
    "select value from server_secrets where name = $1",
    [NAME],
  );
  return Uint8Array.from(row.value.match(/../g)!, (h) => parseInt(h, 16));
}
