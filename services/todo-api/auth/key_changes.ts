/**
 * The key-change generation: one 32-bit counter in a `SharedArrayBuffer`, shared by the main
 * isolate and every `serve` worker isolate of one process. Revoking (or creating) a key through
 * the API bumps it before the response is sent; every authenticator compares it with the value
 * its cache was filled under on each request (one `Atomics.load`) and drops its cache when it
 * moved. So a revocation is in force on the very next request, through whichever worker it
 * arrives: no message has to be delivered first, nothing is racing the client.
 *
 * Other processes (a second instance on the same Postgres server, or `keys revoke` run from the
 * command line) do not share the counter; on Postgres they announce a revoke by `NOTIFY`, which
 * `serve.ts` turns into a bump. Without that connection, the key cache's TTL
 * (`--key-cache-ttl`, 5 s) bounds how long a revoked key keeps working.
 * @module
 */

/** The shared counter (wraps around; only inequality matters). */
export interface KeyChanges {
  /** The current generation. */
  current(): number;
  /** Marks every cached key lookup, in every isolate sharing the buffer, as stale. */
  bump(): void;
  /** The buffer, to hand to worker isolates (`postMessage` shares it, does not copy it). */
  readonly buffer: SharedArrayBuffer;
}

/** The counter over `buffer` (a new one when omitted: a single isolate). */
export function createKeyChanges(buffer = new SharedArrayBuffer(4)): KeyChanges {
  const cell = new Int32Array(buffer, 0, 1);
  return {
    current: () => Atomics.load(cell, 0),
    bump: () => void Atomics.add(cell, 0, 1),
    buffer,
  };
}
