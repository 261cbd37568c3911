/**
 * The captured-request log and its destructive FIFO long-poll `take`. A waiting take is handed a
 * matching request the moment it is captured, so a request is seen by exactly one taker, and
 * waiters are served in the order they started waiting.
 * @module
 */

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

/** The spec's CapturedRequest resource. */
export interface CapturedRequest {
  id: string;
  receivedAt: string;
  issuer: string;
  method: string;
  path: string;
  url: string;
  query?: Record<string, string[]>;
  headers?: Record<string, string[]>;
  bodyBase64?: string;
  body?: string;
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
  /** Called with the new size after every change (for the captured-log gauge). */
  onSize?: (size: number) => void;
}

/** Which protocol endpoint a path such as `/default/token` addresses, if any. */
export function endpointOf(path: string): Endpoint | undefined {
  const rest = path.split("/").slice(2).join("/");
  return (ENDPOINTS as readonly string[]).includes(rest) ? rest as Endpoint : undefined;
}

function matches(entry: CapturedRequest, filter: RequestFilter): boolean {
  if (filter.issuer !== undefined && entry.issuer !== filter.issuer) return false;
  if (filter.endpoint !== undefined && endpointOf(entry.path) !== filter.endpoint) return false;
  return true;
}

export class RequestLog {
  #entries: CapturedRequest[] = [];
  #waiters: Waiter[] = [];
  #maxEntries: number;
  #onSize: (size: number) => void;

  constructor(options: RequestLogOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#onSize = options.onSize ?? (() => {});
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Records a request, handing it straight to the oldest waiter whose filter matches. */
  append(entry: CapturedRequest): void {
    const index = this.#waiters.findIndex((waiter) => matches(entry, waiter.filter));
    if (index >= 0) {
      const [waiter] = this.#waiters.splice(index, 1);
      waiter.resolve(entry);
      return;
    }
    this.#entries.push(entry);
    if (this.#entries.length > this.#maxEntries) this.#entries.shift();
    this.#onSize(this.#entries.length);
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
      const [entry] = this.#entries.splice(index, 1);
      this.#onSize(this.#entries.length);
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
    this.#entries = [];
    this.#onSize(0);
    this.endWaiters();
  }

  /** Ends every waiting take without touching the log (used at shutdown). */
  endWaiters(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter.resolve(undefined);
  }
}
