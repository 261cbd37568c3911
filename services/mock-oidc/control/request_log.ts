/**
 * The captured-request log and its destructive FIFO long-poll `take`. A waiting take is handed a
 * matching request the moment it is captured, so a request is seen by exactly one taker, and
 * waiters are served in the order they started waiting.
 * @module
 */

import { bodySizeOf, dropBody } from "./captured_body.ts";
import { ChangeFeed } from "./change_feed.ts";
import { splitIssuerPath } from "../protocol/issuer_path.ts";
import type { DpopNote } from "../protocol/dpop_challenges.ts";

/** The protocol endpoints a take or list can filter on. */
export const ENDPOINTS = [
  "authorize",
  "token",
  "userinfo",
  "introspect",
  "revoke",
  "endsession",
  "jwks",
] as const;
export type Endpoint = typeof ENDPOINTS[number];

/**
 * Longest accepted `timeoutMs` of a changes wait (one minute: a console re-asks anyway). Here, not
 * in request_routes.ts, because the route table documents it before that module loads.
 */
export const MAX_CHANGES_TIMEOUT_MS = 60_000;

/** A captured protocol request (docs/mock-oidc.md#control-plane, "Captured request"). */
export interface CapturedRequest {
  /** Its id in the log. */
  id: string;
  /** When it came, ISO 8601 (wall clock). */
  receivedAt: string;
  /** The issuer id its path names. */
  issuer: string;
  /** The HTTP method. */
  method: string;
  /** The path. */
  path: string;
  /** The URL as received. */
  url: string;
  /** Query parameters, name → values. */
  query?: Record<string, string[]>;
  /** Headers, lowercase name → values. */
  headers?: Record<string, string[]>;
  /** The exact body bytes. */
  bodyBase64?: string;
  /** The body as UTF-8, best effort. */
  body?: string;
  /** The id of the fault (`/_mock/faults`) that answered it, set once it is answered. */
  fault?: string;
  /**
   * Its `DPoP` proof, once checked (token, userinfo, introspect, par): the key's thumbprint and
   * whether the proof verified (with the error code when not).
   */
  dpop?: DpopNote;
}

export interface RequestFilter {
  issuer?: string;
  endpoint?: Endpoint;
}

interface Waiter {
  filter: RequestFilter;
  resolve: (entry: CapturedRequest | undefined) => void;
}

export interface RequestLogOptions {
  /** Oldest entries are dropped beyond this many. @default 10_000 */
  maxEntries?: number;
  /**
   * Oldest entries are dropped while the log holds more than this many bytes (as estimated by
   * {@linkcode entryBytes}); one entry larger than the budget is still kept alone, so the newest
   * request can always be read. @default 67_108_864 (64 MiB)
   */
  maxBytes?: number;
  /** Called with the new size after every change (for the captured-log gauge). */
  onSize?: (size: number) => void;
}

/** Which protocol endpoint a path such as `/default/token` addresses, if any. */
export function endpointOf(path: string): Endpoint | undefined {
  const rest = splitIssuerPath(path)?.suffix;
  return rest !== undefined && (ENDPOINTS as readonly string[]).includes(rest)
    ? rest as Endpoint
    : undefined;
}

/**
 * The memory an entry holds: its raw body bytes (what `captureOf` keeps), or for other entries
 * two bytes per UTF-16 unit of the decoded body plus its base64; one per character elsewhere
 * (URL, headers are ASCII in practice), plus a fixed overhead for the objects.
 */
export function entryBytes(entry: CapturedRequest): number {
  let n = 512 + entry.url.length + entry.path.length + entry.issuer.length;
  const raw = bodySizeOf(entry);
  n += raw ?? (entry.bodyBase64?.length ?? 0) + 2 * (entry.body?.length ?? 0);
  for (const map of [entry.headers, entry.query]) {
    for (const [name, values] of Object.entries(map ?? {})) {
      n += name.length + 16;
      for (const v of values) n += v.length + 16;
    }
  }
  return n;
}

function matches(entry: CapturedRequest, filter: RequestFilter): boolean {
  if (filter.issuer !== undefined && entry.issuer !== filter.issuer) return false;
  if (filter.endpoint !== undefined && endpointOf(entry.path) !== filter.endpoint) return false;
  return true;
}

export class RequestLog {
  #entries: CapturedRequest[] = [];
  #sizes = new WeakMap<CapturedRequest, number>();
  #bytes = 0;
  #waiters: Waiter[] = [];
  #maxEntries: number;
  #maxBytes: number;
  #onSize: (size: number) => void;
  /** Bumped on every change of the stored entries (the console's long poll waits on it). */
  readonly changes: ChangeFeed = new ChangeFeed();

  constructor(options: RequestLogOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#onSize = options.onSize ?? (() => {});
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Estimated bytes held by the stored entries. */
  get bytes(): number {
    return this.#bytes;
  }

  #store(entry: CapturedRequest, at: number): void {
    const size = entryBytes(entry);
    this.#sizes.set(entry, size);
    this.#bytes += size;
    this.#entries.splice(at, 0, entry);
    while (
      this.#entries.length > this.#maxEntries ||
      (this.#bytes > this.#maxBytes && this.#entries.length > 1)
    ) {
      dropBody(this.#forget(0));
    }
    this.#changed();
  }

  #changed(): void {
    this.#onSize(this.#entries.length);
    this.changes.bump();
  }

  #forget(index: number): CapturedRequest {
    const [entry] = this.#entries.splice(index, 1);
    this.#bytes -= this.#sizes.get(entry) ?? 0;
    return entry;
  }

  /** Records a request, handing it straight to the oldest waiter whose filter matches. */
  append(entry: CapturedRequest): void {
    const index = this.#waiters.findIndex((waiter) => matches(entry, waiter.filter));
    if (index >= 0) {
      const [waiter] = this.#waiters.splice(index, 1);
      waiter.resolve(entry);
      return;
    }
    this.#store(entry, this.#entries.length);
  }

  /**
   * Puts back an entry a take removed but could not deliver: handed to the next matching waiter,
   * or stored again in arrival order, as if it had never been taken.
   */
  restore(entry: CapturedRequest): void {
    const index = this.#waiters.findIndex((waiter) => matches(entry, waiter.filter));
    if (index >= 0) {
      const [waiter] = this.#waiters.splice(index, 1);
      waiter.resolve(entry);
      return;
    }
    const at = this.#entries.findIndex((e) => e.receivedAt > entry.receivedAt);
    this.#store(entry, at < 0 ? this.#entries.length : at);
  }

  /** Matching entries, oldest first, without removing them. */
  list(filter: RequestFilter = {}): CapturedRequest[] {
    return this.#entries.filter((entry) => matches(entry, filter));
  }

  /**
   * Removes and returns the oldest matching entry, waiting up to `timeoutMs` for one to arrive.
   * Resolves `undefined` on timeout, on `clear()` and when `signal` aborts.
   */
  take(
    filter: RequestFilter,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<CapturedRequest | undefined> {
    const index = this.#entries.findIndex((entry) => matches(entry, filter));
    if (index >= 0) {
      const entry = this.#forget(index);
      this.#changed();
      return Promise.resolve(entry);
    }
    if (options.timeoutMs <= 0 || options.signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const finish = (entry: CapturedRequest | undefined) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        resolve(entry);
      };
      const waiter: Waiter = { filter, resolve: finish };
      const giveUp = () => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        finish(undefined);
      };
      const onAbort = () => giveUp();
      const timer = setTimeout(giveUp, options.timeoutMs);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Empties the log and ends every waiting take (they answer as a miss). */
  clear(): void {
    for (const entry of this.#entries) dropBody(entry);
    this.#entries = [];
    this.#bytes = 0;
    this.#changed();
    this.endWaiters();
  }

  /** Ends every waiting take and change wait without touching the log (used at shutdown). */
  endWaiters(): void {
    this.changes.release();
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter.resolve(undefined);
  }
}
