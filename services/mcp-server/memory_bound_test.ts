import assert from "node:assert/strict";
import { DEFAULT_LIMITS, resolveLimits } from "./limits.ts";
import { memoryBound, upstreamSourcesOf } from "./memory_bound.ts";
import { SETTINGS } from "./settings.ts";

const MiB = 1 << 20;

Deno.test("memoryBound: the README's figure for the defaults", () => {
  const b = memoryBound(DEFAULT_LIMITS);
  assert.deepEqual(
    {
      base: b.base / MiB,
      workers: b.workers / MiB,
      replies: b.replies / MiB,
      queued: b.queued / MiB,
      upstreams: b.upstreams,
    },
    { base: 384, workers: 960, replies: 12, queued: 128, upstreams: 0 },
  );
  assert.equal(b.total / MiB, 1484);
});

Deno.test("memoryBound: grows with each setting it names", () => {
  const at = (l: Parameters<typeof resolveLimits>[0]) => memoryBound(resolveLimits(l)).total / MiB;
  assert.equal(at({ maxConcurrentExecutions: 1 }), 384 + 240 + 3 + 128);
  assert.equal(at({ maxQueuedExecutions: 0 }), 1484 - 128);
  assert.equal(at({ workerHeapMb: 64 }), 1484 - 4 * (128 + 16));
  assert.equal(at({ maxSourceBytes: 128 << 10 }), 1484 + 64);
});

Deno.test("memoryBound: upstream answers in flight, one per worker, and each stdio line buffer", () => {
  const sources = (args: string[]) =>
    upstreamSourcesOf(SETTINGS.resolve({ args, env: () => undefined }).values);
  const at = (args: string[]) => memoryBound(DEFAULT_LIMITS, sources(args));
  assert.deepEqual(sources([]), {
    maxResponseBytes: 0,
    stdioServers: 0,
    stdioMaxLineBytes: 4 * MiB,
  });
  assert.equal(at([]).total / MiB, 1484);
  // one --mcp server over HTTP at the default 4 MiB: 4 workers × 3 × 4 MiB
  assert.equal(at(["--mcp", "a=http://h/mcp"]).upstreams / MiB, 48);
  assert.equal(at(["--mcp", "a=http://h/mcp"]).total / MiB, 1484 + 48);
  // more servers add nothing: still one call per worker
  assert.equal(at(["--mcp", "a=http://h/mcp", "--mcp", "b=http://h/mcp"]).upstreams / MiB, 48);
  // a stdio server adds its line buffer and copy
  assert.equal(at(["--mcp", "a=http://h/mcp", "--mcp", "b=stdio:srv x"]).upstreams / MiB, 48 + 8);
  // the bound follows the settings: each response bound, the largest one counted
  assert.equal(
    at(["--mcp", "a=http://h/mcp", "--mcp-max-response-bytes", "1048576"]).upstreams / MiB,
    12,
  );
  assert.equal(
    at([
      "--openapi",
      "t=x.yaml",
      "--openapi-max-response-bytes",
      "8388608",
      "--mcp",
      "a=http://h/mcp",
    ])
      .upstreams / MiB,
    96,
  );
  assert.equal(at(["--openapi", "t=x.yaml"]).upstreams / MiB, 48);
  assert.equal(
    memoryBound(resolveLimits({ maxConcurrentExecutions: 1 }), sources(["--mcp", "a=http://h/mcp"]))
      .upstreams / MiB,
    12,
  );
});
