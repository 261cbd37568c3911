/**
 * Failures on demand: faults the control plane queues (`POST /_mock/faults`) for the next N
 * protocol calls that match them (issuer, endpoint, optionally grant type or client id). Each
 * matching call takes one use of the oldest matching fault, which goes once used up; the answer it
 * gives is made by `fault_response.ts`, loaded on the first fault that fires. Listed by
 * `GET /_mock/faults`, dropped by `DELETE /_mock/faults` and by reset.
 *
 * @module
 */

/** The endpoints a fault can match (discovery covers both documents, device both routes). */
export const FAULT_ENDPOINTS = [
  "discovery",
  "jwks",
  "authorize",
  "token",
  "userinfo",
  "introspect",
  "revoke",
  "device",
  "registration",
] as const;
/** One of {@linkcode FAULT_ENDPOINTS}. */
export type FaultEndpoint = typeof FAULT_ENDPOINTS[number];

/** What a fault answers with. */
export const FAULT_KINDS = ["oauth_error", "http", "delay", "close", "malformed"] as const;

/** Most faults queued at once. */
export const MAX_FAULTS = 100;
/** Most calls one fault answers (`count`). */
export const MAX_FAULT_COUNT = 1_000;
/** Longest `delay` fault, milliseconds (below the default 15 s request timeout). */
export const MAX_FAULT_DELAY_MS = 10_000;

/** A queued fault, as `/_mock/faults` lists it (docs/mock-oidc.md#control-plane, "Fault"). */
export interface Fault {
  /** Its id (the `X-Mock-Oidc-Fault` header of its answers). */
  faultId: string;
  /** The issuer id it matches; any issuer when absent. */
  issuer?: string;
  /** The endpoint it answers for. */
  endpoint: FaultEndpoint;
  /** The token request's `grant_type` it matches (token endpoint only). */
  grantType?: string;
  /** The request's `client_id` (form, query or Basic credentials) it matches. */
  clientId?: string;
  /** Calls it still answers. */
  remaining: number;
  /** How it answers; each kind takes its own fields below and no others. */
  kind: typeof FAULT_KINDS[number];
  /** `oauth_error`: the RFC 6749 `error`. */
  error?: string;
  /** `oauth_error`: its `error_description`. */
  errorDescription?: string;
  /** `oauth_error` (400 to 599, default 400) and `http` (200 to 599, required): the status. */
  status?: number;
  /** `http`: the body, sent as given. */
  body?: string;
  /** `http`: its content type. @default "text/plain; charset=utf-8" */
  contentType?: string;
  /** `delay`: how long before the endpoint answers as usual (0 to 10 000 ms). */
  delayMs?: number;
  /** `malformed`: JSON that does not parse, or a JWKS without keys. */
  malformed?: "bad_json" | "jwks_without_keys";
}

/** What `POST /_mock/faults` takes: a fault without its id, with how many calls it answers. */
export interface FaultRequest extends Omit<Fault, "faultId" | "remaining"> {
  /** How many matching calls it answers (1 to 1 000). @default {1} */
  count?: number;
}

/** What a call is matched on. */
export interface FaultCall {
  issuerId: string;
  endpoint: FaultEndpoint;
  /** Read only when a queued fault asks for it (it costs a read of a copy of the body). */
  details: () => Promise<{ grantType?: string; clientId?: string }>;
}

/** The queue of faults. */
export class FaultQueue {
  #faults: Fault[] = [];

  /** How many faults are queued. */
  get size(): number {
    return this.#faults.length;
  }

  /** Queues `fault`; `false` when {@linkcode MAX_FAULTS} are queued already. */
  add(fault: Fault): boolean {
    if (this.#faults.length >= MAX_FAULTS) return false;
    this.#faults.push(fault);
    return true;
  }

  /** The queued faults, oldest first (copies). */
  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  /** Drops every fault. */
  clear(): void {
    this.#faults = [];
  }

  /** Takes one use of the oldest fault matching `call`, or `undefined`. */
  async take(call: FaultCall): Promise<Fault | undefined> {
    const candidates = this.#faults.filter((f) =>
      f.endpoint === call.endpoint && (f.issuer === undefined || f.issuer === call.issuerId)
    );
    if (candidates.length === 0) return undefined;
    const details = candidates.some((f) => f.grantType !== undefined || f.clientId !== undefined)
      ? await call.details()
      : {};
    const fault = candidates.find((f) =>
      (f.grantType === undefined || f.grantType === details.grantType) &&
      (f.clientId === undefined || f.clientId === details.clientId)
    );
    // Another call may have used it up while the body was read.
    if (!fault || !this.#faults.includes(fault)) return undefined;
    fault.remaining--;
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    return { ...fault };
  }
}
