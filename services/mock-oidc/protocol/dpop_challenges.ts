/**
 * What the control plane sets and reads of DPoP: nonce challenges of
 * `POST /_mock/dpop/nonce-challenge` ({@linkcode NonceChallenges}) and the outcome of each
 * request's proof for the captured-request log ({@linkcode DpopNote}). Without imports, so the
 * protocol state holds it from the start.
 *
 * @module
 */

/** At most this many nonce challenges of `POST /_mock/dpop/nonce-challenge` wait at once. */
export const MAX_NONCE_CHALLENGES = 100;

/**
 * Nonce challenges set by the control plane (`POST /_mock/dpop/nonce-challenge`): the next token
 * request with a DPoP proof to the issuer (from the client, when one is named) must carry a
 * current server nonce, as if the issuer demanded them; the challenge is used up by that request.
 */
export class NonceChallenges {
  #pending = new Set<string>();

  /** Sets a challenge; false when {@linkcode MAX_NONCE_CHALLENGES} are already waiting. */
  add(issuerId: string, clientId?: string): boolean {
    const key = JSON.stringify([issuerId, clientId ?? null]);
    if (this.#pending.has(key)) return true;
    if (this.#pending.size >= MAX_NONCE_CHALLENGES) return false;
    this.#pending.add(key);
    return true;
  }

  /** Uses up the client's challenge, else the issuer-wide one; whether there was one. */
  take(issuerId: string, clientId?: string): boolean {
    for (const key of [[issuerId, clientId ?? null], [issuerId, null]]) {
      if (this.#pending.delete(JSON.stringify(key))) return true;
    }
    return false;
  }

  /** The waiting challenges, oldest first. */
  list(): { issuer: string; clientId?: string }[] {
    return [...this.#pending].map((key) => {
      const [issuer, clientId] = JSON.parse(key) as [string, string | null];
      return clientId === null ? { issuer } : { issuer, clientId };
    });
  }

  clear(): void {
    this.#pending.clear();
  }
}

/** What the captured-request log shows of a request's DPoP proof (`dpop` of an entry). */
export interface DpopNote {
  /** The RFC 7638 thumbprint of the proof's `jwk`, when it has a usable one. */
  jkt?: string;
  /** Whether the proof verified. */
  verified: boolean;
  /** The error code of a refused proof (`invalid_dpop_proof`, `use_dpop_nonce`). */
  error?: string;
}

const notes = new WeakMap<Request, DpopNote>();

/** Records the outcome of `req`'s proof for the captured-request log. */
export function noteDpop(req: Request, note: DpopNote): void {
  notes.set(req, note);
}

/** The outcome of `req`'s proof, if one was checked. */
export function dpopNoteOf(req: Request): DpopNote | undefined {
  return notes.get(req);
}
