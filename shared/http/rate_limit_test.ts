import assert from "node:assert/strict";
import { RateLimiter, withRateLimit } from "./rate_limit.ts";

Deno.test("RateLimiter allows a burst, then refills at rps", () => {
  let now = 0;
  const limiter = new RateLimiter({ rps: 10, burst: 20, now: () => now });
  for (let i = 0; i < 20; i++) assert.equal(limiter.take("ip").allowed, true, `request ${i}`);
  assert.deepEqual(limiter.take("ip"), { allowed: false, retryAfterSeconds: 1 });
  now += 99;
  assert.equal(limiter.take("ip").allowed, false);
  now += 2; // 101 ms: just over one token at 10 rps
  assert.equal(limiter.take("ip").allowed, true);
  assert.equal(limiter.take("other").allowed, true);
});

Deno.test("RateLimiter rounds Retry-After up to whole seconds", () => {
  const limiter = new RateLimiter({ rps: 0.25, burst: 1, now: () => 0 });
  limiter.take("ip");
  assert.equal(limiter.take("ip").retryAfterSeconds, 4);
});

Deno.test("withRateLimit answers 429 problems with Retry-After and spares health routes", async () => {
  const handler = withRateLimit(() => new Response("ok"), {
    limiter: new RateLimiter({ rps: 1, burst: 1, now: () => 0 }),
    clientIp: () => "1.2.3.4",
  });
  const info = {} as Deno.ServeHandlerInfo;
  assert.equal((await handler(new Request("http://x/a/jwks"), info)).status, 200);
  const limited = await handler(new Request("http://x/a/jwks"), info);
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("retry-after"), "1");
  assert.equal(limited.headers.get("content-type"), "application/problem+json");
  assert.equal((await limited.json()).status, 429);
  assert.equal((await handler(new Request("http://x/healthz"), info)).status, 200);
});

Deno.test("RateLimiter validates rps and burst at their bounds", () => {
  assert.throws(() => new RateLimiter({ rps: 0 }), /rps must be > 0/);
  assert.throws(() => new RateLimiter({ rps: -1 }), /rps must be > 0/);
  new RateLimiter({ rps: 0.001 });
  assert.throws(() => new RateLimiter({ burst: 0.99 }), /burst must be >= 1/);
  new RateLimiter({ burst: 1 });
});

Deno.test("RateLimiter drops full buckets once it holds more than maxKeys", () => {
  let now = 0;
  const limiter = new RateLimiter({ rps: 1, burst: 1, maxKeys: 2, now: () => now });
  limiter.take("a");
  limiter.take("b");
  now += 5_000; // a and b are full again
  limiter.take("c"); // three keys: the full ones are pruned, c stays (it just spent its token)
  assert.equal(limiter.take("c").allowed, false);
  assert.equal(limiter.take("a").allowed, true, "a pruned bucket starts full");
});

Deno.test("withRateLimit exempts the paths it is given instead of the probe paths", async () => {
  const handler = withRateLimit(() => new Response("ok"), {
    limiter: new RateLimiter({ rps: 1, burst: 1, now: () => 0 }),
    clientIp: () => "1.2.3.4",
    exemptPaths: new Set(["/status"]),
  });
  const info = {} as Deno.ServeHandlerInfo;
  assert.equal((await handler(new Request("http://x/status"), info)).status, 200);
  assert.equal((await handler(new Request("http://x/status"), info)).status, 200);
  assert.equal((await handler(new Request("http://x/healthz"), info)).status, 200);
  assert.equal((await handler(new Request("http://x/healthz"), info)).status, 429);
});
