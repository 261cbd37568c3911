/**
 * The debugger's per-process cookie key, apart from session.ts so that the protocol table can
 * make one without loading the JOSE library.
 *
 * @module
 */

/** A fresh per-process key (16 bytes for A128GCM). */
export function newSessionKey(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(16));
}
