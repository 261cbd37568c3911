/**
 * Per-client token-bucket rate limiting: each client (by IP, or any key) may burst up to `burst`
 * requests and then `rps` per second; an empty bucket answers a 429 problem with `Retry-After`.
 * Probe and scrape paths are never limited, so health checks keep working under load.
 * @module
 */
import { errorResponse, HttpError } from "./problem.ts";
import { PROBE_PATHS } from "./health.ts";
import type { Handler } from "./handler.ts";

/** Options of {@linkcode RateLimiter}. */
export interface RateLimiterOptions {
  /** Sustained requests per second. @default 10 */
  rps?: number;
  /** Bucket size. @default 20 */
  burst?: number;
  /** Monotonic time source in ms. @default performance.now */
  now?: () => number;
  /** Buckets kept before idle (full) ones are dropped. @default 10_000 */
  maxKeys?: number;
}

/** The outcome of {@linkcode RateLimiter.take}. */
export interface RateDecision {
  /** Whether the request may go ahead. */
  allowed: boolean;
  /** Whole seconds until one token is available again (0 when allowed). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * A token bucket per key.
 *
 * @example Usage
 * ```ts
 * import { RateLimiter } from "@svc/shared/http";
 * import assert from "node:assert/strict";
 * let now = 0;
 * const limiter = new RateLimiter({ rps: 1, burst: 2, now: () => now });
 * assert.equal(limiter.take("10.0.0.1").allowed, true);
 * assert.equal(limiter.take("10.0.0.1").allowed, true);
 * assert.deepEqual(limiter.take("10.0.0.1"), { allowed: false, retryAfterSeconds: 1 });
 * now += 1_000;
 * assert.equal(limiter.take("10.0.0.1").allowed, true);
 * ```
 */
export class RateLimiter {
  #rps: number;
  #burst: number;
  #now: () => number;
  #maxKeys: number;
  #buckets = new Map<string, Bucket>();

  /**
   * Creates a limiter with no buckets yet.
   * @throws {RangeError} when `rps` is not above 0 or `burst` is below 1.
   */
  constructor(options: RateLimiterOptions = {}) {
    this.#rps = options.rps ?? 10;
    this.#burst = options.burst ?? 20;
    this.#now = options.now ?? (() => performance.now());
    this.#maxKeys = options.maxKeys ?? 10_000;
    if (!(this.#rps > 0)) throw new RangeError("Cannot create rate limiter: rps must be > 0");
    if (!(this.#burst >= 1)) throw new RangeError("Cannot create rate limiter: burst must be >= 1");
  }

  /** Takes one token from `key`'s bucket if it has one. */
  take(key: string): RateDecision {
    const now = this.#now();
    // Prune before a new key goes in, so the new bucket (full until this take) is not dropped.
    if (!this.#buckets.has(key) && this.#buckets.size >= this.#maxKeys) this.#prune(now);
    const bucket = this.#refill(this.#buckets.get(key), now);
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    const waitMs = ((1 - bucket.tokens) / this.#rps) * 1000;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  #refill(bucket: Bucket | undefined, now: number): Bucket {
    if (!bucket) return { tokens: this.#burst, updated: now };
    const tokens = Math.min(
      this.#burst,
      bucket.tokens + ((now - bucket.updated) / 1000) * this.#rps,
    );
    return { tokens, updated: now };
  }

  #prune(now: number) {
    for (const [key, bucket] of this.#buckets) {
      if (this.#refill(bucket, now).tokens >= this.#burst) this.#buckets.delete(key);
    }
  }
}

/** Options of {@linkcode withRateLimit}. */
export interface RateLimitOptions {
  /** The buckets. */
  limiter: RateLimiter;
  /** The bucket key of a request (the client IP, honouring a trusted proxy header). */
  clientIp: (req: Request, info: Deno.ServeHandlerInfo) => string;
  /** Paths never limited. @default {PROBE_PATHS} */
  exemptPaths?: ReadonlySet<string>;
}

/**
 * Answers 429 problems (code `rate_limited`, `Retry-After` in whole seconds) for clients over
 * their rate.
 *
 * @example Usage
 * ```ts
 * import { clientIp, RateLimiter, withRateLimit } from "@svc/shared/http";
 * const handler = withRateLimit(() => new Response("ok"), {
 *   limiter: new RateLimiter({ rps: 10, burst: 20 }),
 *   clientIp: (req, info) => clientIp(req, info),
 * });
 * ```
 */
export function withRateLimit(handler: Handler, options: RateLimitOptions): Handler {
  const exempt = options.exemptPaths ?? PROBE_PATHS;
  return function rateLimit(req, info) {
    if (exempt.has(new URL(req.url).pathname)) return handler(req, info);
    const decision = options.limiter.take(options.clientIp(req, info));
    if (decision.allowed) return handler(req, info);
    return errorResponse(
      new HttpError(429, "rate_limited", "rate limit exceeded, retry later", {
        headers: { "retry-after": String(decision.retryAfterSeconds) },
      }),
      {},
    );
  };
}
