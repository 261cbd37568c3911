/**
 * Per-client-IP token-bucket rate limiting (`--rate-limit-*`): each IP may burst up to `burst`
 * requests and then `rps` per second; an empty bucket answers a 429 problem with `Retry-After`.
 * @module
 */
import { errorResponse, HttpError } from "@svc/shared/problem";
import type { Handler } from "@svc/shared/http";

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

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until one token is available again (0 when allowed). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updated: number;
}

/** A token bucket per key. */
export class RateLimiter {
  #rps: number;
  #burst: number;
  #now: () => number;
  #maxKeys: number;
  #buckets = new Map<string, Bucket>();

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
    const bucket = this.#refill(this.#buckets.get(key), now);
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > this.#maxKeys) this.#prune(now);
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

/** Paths that are never limited, so probes and scrapes keep working under load. */
const UNLIMITED = new Set(["/isalive", "/healthz", "/readyz", "/metrics"]);

/** Answers 429 problems for clients over their rate. */
export function withRateLimit(
  handler: Handler,
  options: {
    limiter: RateLimiter;
    clientIp: (req: Request, info: Deno.ServeHandlerInfo) => string;
  },
): Handler {
  return function rateLimit(req, info) {
    if (UNLIMITED.has(new URL(req.url).pathname)) return handler(req, info);
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
