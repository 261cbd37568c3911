import assert from "node:assert/strict";
import { localInfo, type Route } from "@svc/shared/http";
import { contractPath, documentedRoutes } from "@svc/testing/route-docs";
import { createApp, routes } from "./app.ts";
import { memoryStore, object, recordingLogger } from "./_test_support.ts";
import { createStreamLimiter } from "./stream/limiter.ts";
import { OBJECT_HEADERS } from "./object/headers.ts";
import { nextTurn } from "@svc/testing";
import { createCacheDefaults } from "./object/cache_policy.ts";

const BODY = "0123456789abcdefghij"; // 20 bytes

function setup(options: { maxStreams?: number; upstreamIdleMs?: number } = {}) {
  const store = memoryStore({
    "p/dir/file.bin": object(BODY),
    "p/v/20250824_13:00/x": object("x"),
  });
  const limiter = createStreamLimiter(options.maxStreams ?? 64);
  const { logger, records } = recordingLogger();
  const app = createApp({
    objects: {
      store,
      prefix: "p/",
      limiter,
      upstreamIdleMs: options.upstreamIdleMs ?? 5_000,
      writeIdleMs: 5_000,
    },
    readyz: () => Response.json({ status: "ready" }),
    logger,
  });
  async function call(path: string | Request, init: RequestInit = {}) {
    const req = typeof path === "string" ? new Request("http://proxy.test" + path, init) : path;
    return await app(req, localInfo());
  }
  return { store, limiter, records, call };
}

/** The cells of the contract's route-table row whose path cell reads `path` (not back-quoted). */
function contractRow(markdown: string, path: string): Record<string, string> | undefined {
  const cellsOf = (line: string) =>
    line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
  let header: string[] | undefined;
  for (const line of markdown.split("\n")) {
    if (!line.trim().startsWith("|")) {
      header = undefined;
      continue;
    }
    const cells = cellsOf(line);
    if (!header) header = cells.map((c) => c.toLowerCase());
    else if (cells[header.indexOf("path")] === path) {
      return Object.fromEntries(header.map((name, i) => [name, cells[i]]));
    }
  }
  return undefined;
}

async function json(res: Response) {
  assert.equal(res.headers.get("content-type"), "application/json");
  return await res.json();
}

async function expectError(res: Response, status: number, code: string) {
  assert.equal(res.status, status);
  const body = await json(res);
  assert.deepEqual(Object.keys(body).sort(), ["code", "request_id"]);
  assert.equal(body.code, code);
  assert.equal(body.request_id, res.headers.get("x-request-id"));
}

Deno.test("GET of an object answers 200 with the bytes and only the allowlisted headers", async () => {
  const { call, store } = setup();
  const res = await call("/dir/file.bin");
  assert.equal(res.status, 200);
  assert.equal(await res.text(), BODY);
  const names = [...res.headers.keys()].filter((n) => n !== "x-request-id");
  for (const name of names) assert.ok((OBJECT_HEADERS as readonly string[]).includes(name), name);
  assert.equal(res.headers.get("content-length"), "20");
  assert.equal(res.headers.get("accept-ranges"), "bytes");
  assert.equal(res.headers.get("etag"), store.objects.get("p/dir/file.bin")!.meta!.etag);
  assert.equal(res.headers.get("last-modified"), "Sun, 24 Aug 2025 13:00:00 GMT");
  assert.equal(res.headers.get("content-type"), "application/octet-stream");
  assert.deepEqual(store.calls, ["get p/dir/file.bin"], "a plain GET is one storage request");
  store.calls.length = 0;
  await (await call("/dir/file.bin", { headers: { range: "bytes=0-1" } })).text();
  assert.deepEqual(store.calls, ["head p/dir/file.bin", "get p/dir/file.bin"]);
});

Deno.test("GET forwards every allowlisted metadata field", async () => {
  const { call, store } = setup();
  store.objects.set(
    "p/meta",
    object("m", {
      contentType: "application/x-xz",
      cacheControl: "max-age=60",
      contentDisposition: 'attachment; filename="m.xz"',
      contentEncoding: "identity",
      expires: "Thu, 01 Dec 2044 16:00:00 GMT",
    }),
  );
  const res = await call("/meta");
  await res.body?.cancel();
  assert.equal(res.headers.get("content-type"), "application/x-xz");
  assert.equal(res.headers.get("cache-control"), "max-age=60");
  assert.equal(res.headers.get("content-disposition"), 'attachment; filename="m.xz"');
  assert.equal(res.headers.get("content-encoding"), "identity");
  assert.equal(res.headers.get("expires"), "Thu, 01 Dec 2044 16:00:00 GMT");
});

Deno.test("paths with a colon, raw or as %3A, reach the same key", async () => {
  const { call } = setup();
  for (const path of ["/v/20250824_13:00/x", "/v/20250824_13%3A00/x", "/v/20250824_13%3a00/x"]) {
    const res = await call(path);
    assert.equal(res.status, 200, path);
    assert.equal(await res.text(), "x");
  }
});

Deno.test("invalid paths answer 400 invalid_input without any storage request", async () => {
  const { call, store } = setup();
  // (the Request constructor resolves dot segments; those are covered end to end)
  for (const path of ["/a%2Fb", "/a%5Cb", "/a%00", "/a//b", "/a%zz", "/a/"]) {
    await expectError(await call(path), 400, "invalid_input");
  }
  assert.deepEqual(store.calls, []);
});

Deno.test("Range: one bytes range is served as 206", async (t) => {
  const { call } = setup();
  const cases: [string, number, string, string | null][] = [
    ["bytes=0-4", 206, "01234", "bytes 0-4/20"],
    ["bytes=0-", 206, BODY, "bytes 0-19/20"],
    ["bytes=15-", 206, "fghij", "bytes 15-19/20"],
    ["bytes=-3", 206, "hij", "bytes 17-19/20"],
    ["bytes=18-100", 206, "ij", "bytes 18-19/20"],
    ["bytes=0-1,3-4", 200, BODY, null],
    ["bytes=5-1", 200, BODY, null],
    ["pages=1-2", 200, BODY, null],
    ["garbage", 200, BODY, null],
  ];
  for (const [range, status, body, contentRange] of cases) {
    await t.step(range, async () => {
      const res = await call("/dir/file.bin", { headers: { range } });
      assert.equal(res.status, status);
      assert.equal(await res.text(), body);
      assert.equal(res.headers.get("content-range"), contentRange);
      assert.equal(res.headers.get("content-length"), String(body.length));
    });
  }
});

Deno.test("Range: an unsatisfiable range answers 416 with Content-Range bytes */size", async () => {
  const { call } = setup();
  for (const range of ["bytes=20-", "bytes=25-30", "bytes=-0"]) {
    const res = await call("/dir/file.bin", { headers: { range } });
    assert.equal(res.headers.get("content-range"), "bytes */20");
    await expectError(res, 416, "range_not_satisfiable");
  }
});

Deno.test("If-Range decides whether the Range applies", async (t) => {
  const { call, store } = setup();
  const etag = store.objects.get("p/dir/file.bin")!.meta!.etag!;
  const cases: [string, string, number][] = [
    ["matching strong ETag", etag, 206],
    ["other ETag", '"other"', 200],
    ["weak ETag", `W/${etag}`, 200],
    ["exact Last-Modified", "Sun, 24 Aug 2025 13:00:00 GMT", 206],
    ["other date", "Sun, 24 Aug 2025 13:00:01 GMT", 200],
    ["malformed", "tomorrow", 200],
  ];
  for (const [name, ifRange, status] of cases) {
    await t.step(name, async () => {
      const res = await call("/dir/file.bin", {
        headers: { range: "bytes=0-1", "if-range": ifRange },
      });
      assert.equal(res.status, status);
      assert.equal(await res.text(), status === 206 ? "01" : BODY);
    });
  }
});

Deno.test("conditional GET and HEAD answer 304 without a body and 412 with one", async (t) => {
  const { call, store } = setup();
  const etag = store.objects.get("p/dir/file.bin")!.meta!.etag!;
  for (const method of ["GET", "HEAD"]) {
    await t.step(`${method} If-None-Match → 304`, async () => {
      const res = await call("/dir/file.bin", { method, headers: { "if-none-match": etag } });
      assert.equal(res.status, 304);
      assert.equal(res.body, null);
      assert.equal(res.headers.get("etag"), etag);
      assert.equal(res.headers.get("content-length"), null);
      assert.equal(res.headers.get("content-type"), null);
    });
    await t.step(`${method} If-Modified-Since → 304`, async () => {
      const headers = { "if-modified-since": "Sun, 24 Aug 2025 13:00:00 GMT" };
      const res = await call("/dir/file.bin", { method, headers });
      assert.equal(res.status, 304);
      assert.equal(res.body, null);
    });
  }
  await t.step("GET If-Match mismatch → 412", async () => {
    const res = await call("/dir/file.bin", { headers: { "if-match": '"nope"' } });
    await expectError(res, 412, "precondition_failed");
  });
  await t.step("GET If-Unmodified-Since before → 412", async () => {
    const headers = { "if-unmodified-since": "Sat, 23 Aug 2025 13:00:00 GMT" };
    await expectError(await call("/dir/file.bin", { headers }), 412, "precondition_failed");
  });
  await t.step("HEAD 412 has no body", async () => {
    const res = await call("/dir/file.bin", { method: "HEAD", headers: { "if-match": '"x"' } });
    assert.equal(res.status, 412);
    assert.equal(res.body, null);
  });
  await t.step("malformed conditional headers → 400 before storage is asked", async () => {
    store.calls.length = 0;
    for (
      const [name, value] of [
        ["if-match", "nope"],
        ["if-none-match", "nope"],
        ["if-modified-since", "nope"],
        ["if-unmodified-since", "nope"],
      ]
    ) {
      await expectError(
        await call("/dir/file.bin", { headers: { [name]: value } }),
        400,
        "invalid_input",
      );
    }
    assert.deepEqual(store.calls, []);
  });
});

Deno.test("HEAD answers the GET headers without a body, ignoring Range", async () => {
  const { call } = setup();
  const res = await call("/dir/file.bin", { method: "HEAD", headers: { range: "bytes=0-1" } });
  assert.equal(res.status, 200);
  assert.equal(res.body, null);
  assert.equal(res.headers.get("content-length"), "20");
  assert.equal(res.headers.get("content-range"), null);
  const missing = await call("/nope", { method: "HEAD" });
  assert.equal(missing.status, 404);
  assert.equal(missing.body, null);
});

Deno.test("storage failures map to the contract's status table", async (t) => {
  const { call, store } = setup();
  await t.step("missing object → 404 not_found", async () => {
    await expectError(await call("/missing"), 404, "not_found");
  });
  const cases = [
    ["denied", 502, "unauthorized_upstream"],
    ["unavailable", 503, "unavailable"],
    ["timeout", 504, "deadline_exceeded"],
    ["misconfigured", 500, "internal_failure"],
    ["failed", 500, "internal_failure"],
  ] as const;
  for (const [storeCode, status, code] of cases) {
    await t.step(`${storeCode} → ${status} ${code}`, async () => {
      store.failures.push(storeCode);
      const res = await call("/dir/file.bin");
      assert.equal(res.headers.get("retry-after"), status === 503 ? "1" : null);
      await expectError(res, status, code);
    });
  }
});

Deno.test("an unexpected storage failure is logged by kind, never by message", async () => {
  const { call, store, records } = setup();
  store.failures.push("misconfigured");
  await (await call("/dir/file.bin")).body?.cancel();
  const line = records.find((r) => r.msg === "request failed");
  assert.equal(line?.level, "error");
  assert.equal(line?.["error.type"], "HttpError < StoreError(misconfigured)");
});

Deno.test("an object replaced between metadata and body is never spliced", async (t) => {
  await t.step("replaced once: retried, served whole from the new version", async () => {
    const { call, store } = setup();
    let replaced = false;
    store.beforeGet = (key) => {
      if (replaced) return;
      replaced = true;
      store.objects.set(key, object("NEW VERSION"));
    };
    const res = await call("/dir/file.bin", { headers: { "if-none-match": '"other"' } });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "NEW VERSION");
    assert.equal(res.headers.get("etag"), store.objects.get("p/dir/file.bin")!.meta!.etag);
    assert.equal(res.headers.get("content-length"), "11");
  });
  await t.step("replaced on every read: 503 unavailable", async () => {
    const { call, store } = setup();
    store.beforeGet = (key) => store.objects.set(key, object("again"));
    const res = await call("/dir/file.bin", { headers: { range: "bytes=0-3" } });
    assert.equal(res.headers.get("retry-after"), "1");
    await expectError(res, 503, "unavailable");
  });
});

Deno.test("methods other than GET and HEAD answer 405 with Allow on every path", async () => {
  const { call, store } = setup();
  for (const path of ["/dir/file.bin", "/healthz", "/readyz", "/a%2Fb"]) {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW", "CONNECTX"]) {
      const res = await call(path, { method });
      assert.equal(res.headers.get("allow"), "GET, HEAD");
      await expectError(res, 405, "method_not_allowed");
    }
  }
  assert.deepEqual(store.calls, []);
});

Deno.test("a path that only resolves to a probe is an object path, and invalid", async () => {
  const { call, store, records } = setup();
  for (const path of ["/a/../healthz", "/./readyz", "/healthz/.", "/x/%2E%2E/healthz"]) {
    // `new Request` resolves dot segments; Deno.serve hands the target over as sent.
    const req = new Request("http://proxy.test/healthz");
    Object.defineProperty(req, "url", { value: "http://proxy.test" + path });
    await expectError(await call(req), 400, "invalid_input");
  }
  assert.deepEqual(store.calls, []);
  await nextTurn();
  const routes = records.filter((r) => r.msg === "request completed").map((r) => r["http.route"]);
  assert.deepEqual(routes, ["object", "object", "object", "object"]);
});

Deno.test("a URL Deno could not build (an invalid Host) answers 400 invalid_input", async () => {
  const { call, store, records } = setup();
  const req = new Request("http://proxy.test/dir/file.bin", { headers: { "x-request-id": "h1" } });
  Object.defineProperty(req, "url", { value: "http://a:99999/dir/file.bin" });
  const res = await call(req);
  await expectError(res, 400, "invalid_input");
  assert.equal(res.headers.get("x-request-id"), "h1");
  assert.deepEqual(store.calls, []);
  await nextTurn();
  const line = records.find((r) => r.msg === "request completed");
  assert.equal(line?.["http.response.status_code"], 400);
  assert.equal(line?.["error.kind"], "invalid_input");
});

Deno.test("X-Request-ID: the client's value when valid, else a generated one, on every answer", async (t) => {
  const { call } = setup();
  const valid = ["a", "A-b_c.9", "x".repeat(128)];
  const invalid = ["", "x".repeat(129), "a b", "a/b", "é", "a:b", "<script>"];
  for (const id of valid) {
    await t.step(`kept: ${id.slice(0, 20)}`, async () => {
      for (const path of ["/dir/file.bin", "/missing", "/healthz"]) {
        const res = await call(path, { headers: { "x-request-id": id } });
        await res.body?.cancel();
        assert.equal(res.headers.get("x-request-id"), id);
      }
    });
  }
  for (const id of invalid) {
    await t.step(`replaced: ${JSON.stringify(id.slice(0, 20))}`, async () => {
      const res = await call("/missing", { headers: { "x-request-id": id } });
      const got = res.headers.get("x-request-id")!;
      assert.notEqual(got, id);
      assert.match(got, /^[A-Za-z0-9._-]{1,128}$/);
      assert.equal((await res.json()).request_id, got);
    });
  }
});

Deno.test("/healthz answers 200 {status: ok} without touching storage; HEAD has no body", async () => {
  const { call, store } = setup();
  const res = await call("/healthz");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "ok" });
  const head = await call("/healthz", { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.body, null);
  assert.deepEqual(store.calls, []);
});

Deno.test("the stream limit refuses the next download at once and frees slots", async (t) => {
  const { call, limiter } = setup({ maxStreams: 2 });
  const first = await call("/dir/file.bin");
  const second = await call("/dir/file.bin");
  assert.equal(limiter.active, 2);
  await t.step("at the limit: 503 stream_limit with Retry-After: 1", async () => {
    const res = await call("/dir/file.bin");
    assert.equal(res.headers.get("retry-after"), "1");
    await expectError(res, 503, "stream_limit");
  });
  await t.step("HEAD, 304 and errors take no slot", async () => {
    assert.equal((await call("/dir/file.bin", { method: "HEAD" })).status, 200);
    assert.equal((await call("/healthz")).status, 200);
  });
  await t.step("a completed download frees its slot", async () => {
    assert.equal(await first.text(), BODY);
    assert.equal(limiter.active, 1);
    const third = await call("/dir/file.bin");
    assert.equal(third.status, 200);
    await third.body!.cancel();
  });
  await t.step("a client abort frees its slot", async () => {
    await second.body!.cancel();
    assert.equal(limiter.active, 0);
  });
  await t.step("404 and 412 free their slots", async () => {
    await (await call("/missing")).body?.cancel();
    await (await call("/dir/file.bin", { headers: { "if-match": '"x"' } })).body?.cancel();
    const res = await call("/dir/file.bin", { headers: { "if-none-match": "*" } });
    assert.equal(res.status, 304);
    assert.equal(limiter.active, 0);
  });
});

Deno.test("a stalled upstream ends the body short and frees the slot", async () => {
  const { call, store, limiter, records } = setup({ upstreamIdleMs: 50 });
  store.stallAfter = 5;
  const res = await call("/dir/file.bin");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-length"), "20");
  const got = new Uint8Array(await res.arrayBuffer());
  assert.equal(got.byteLength, 5, "truncated, not padded");
  assert.equal(limiter.active, 0);
  await nextTurn();
  const record = records.find((r) => r.msg === "request completed");
  assert.equal(record?.["error.kind"], "upstream_timeout");
  assert.equal(record?.["http.response.body.size"], 5);
});

Deno.test("each request writes one 'request completed' record, fields as documented", async () => {
  const { call, records } = setup();
  const res = await call("/dir/file.bin", {
    headers: { range: "bytes=0-1", "x-request-id": "r1" },
  });
  await res.text();
  await (await call("/missing?token=secret")).body?.cancel();
  await (await call("/healthz")).body?.cancel();
  await nextTurn();
  const lines = records.filter((r) => r.msg === "request completed");
  assert.equal(lines.length, 3);
  const [object, missing, health] = lines;
  assert.equal(object.level, "info");
  assert.equal(object.request_id, "r1");
  assert.equal(object["http.request.method"], "GET");
  assert.equal(object["http.route"], "object");
  assert.equal(object["http.response.status_code"], 206);
  assert.equal(object["http.response.body.size"], 2);
  assert.equal(object.range_requested, true);
  assert.equal(typeof object.duration_ms, "number");
  assert.equal(object["error.kind"], undefined);
  assert.equal(object.component, "http");
  assert.equal(missing["error.kind"], "not_found");
  assert.equal(missing.range_requested, false);
  assert.equal(health.level, "debug");
  assert.equal(health["http.route"], "health");
  const text = JSON.stringify(records);
  for (const secret of ["dir/file.bin", "missing", "token", "127.0.0.1"]) {
    assert.ok(!text.includes(secret), `logs never contain ${secret}`);
  }
});

Deno.test("the record reads the request before the response is over (HTTP/2 closes headers)", async () => {
  const { logger, records: own } = recordingLogger();
  const proxy = createApp({
    objects: {
      store: memoryStore({}),
      prefix: "p/",
      limiter: createStreamLimiter(4),
      upstreamIdleMs: 5_000,
      writeIdleMs: 5_000,
    },
    readyz: () => Response.json({ status: "ready" }),
    logger,
  });
  for (const [path, method] of [["/healthz", "GET"], ["/missing", "GET"], ["/x", "DELETE"]]) {
    const req = new Request("http://proxy.test" + path, {
      method,
      headers: { range: "bytes=0-1" },
    });
    const headers = req.headers;
    let closed = false;
    Object.defineProperty(req, "headers", {
      get() {
        if (closed) throw new TypeError("Request closed");
        return headers;
      },
    });
    let finish!: () => void;
    const completed = new Promise<void>((r) => finish = r);
    const res = await proxy(req, { ...localInfo(), completed });
    const sent = (await res.arrayBuffer()).byteLength;
    closed = true;
    finish();
    await nextTurn(); // an unhandled rejection would fail this test
    const record = own.filter((r) => r.msg === "request completed").at(-1)!;
    assert.equal(record.range_requested, true, path);
    assert.equal(record["http.response.body.size"], sent, path);
    assert.ok(sent > 0, path);
  }
});

Deno.test("the route table and the routes table of docs/image-proxy.md agree", async (t) => {
  const contract = await Deno.readTextFile(new URL("../../docs/image-proxy.md", import.meta.url));
  const answer = () => new Response(null);
  const table = routes({
    healthz: answer,
    readyz: answer,
    object: () => Promise.resolve(answer()),
  });
  const methodsOf = (route: Route) => [route.method].flat();
  // The object route is the table's fallback: the contract documents it as "any other path",
  // which documentedRoutes leaves out, so it is compared on its own below.
  const fallback = table.filter((route) => route.pattern === "/*");
  const named = table.filter((route) => route.pattern !== "/*");
  await t.step(
    "every named route is documented, and every documented route is in the table",
    () => {
      const fromTable = named.flatMap((route) =>
        methodsOf(route).map((method) => `${method} ${contractPath(String(route.pattern))}`)
      );
      const fromContract = documentedRoutes(contract).map((r) => `${r.method} ${r.path}`);
      assert.deepEqual(fromTable.sort(), fromContract.sort());
      assert.ok(fromTable.length >= 4, "the probes, GET and HEAD each");
    },
  );
  await t.step("the object route is the contract's 'any other path', with its methods", () => {
    assert.equal(fallback.length, 1, "one fallback row");
    const row = contractRow(contract, "any other path");
    assert.ok(row, "the contract has an 'any other path' row");
    assert.deepEqual(row.methods.split(",").map((m) => m.trim()), methodsOf(fallback[0]));
  });
  await t.step("every other method is the contract's 405 with the table's methods in Allow", () => {
    const row = contractRow(contract, "any path");
    assert.ok(row, "the contract has an 'any path' row");
    assert.equal(row.methods, "others");
    const allow = [...new Set(table.flatMap(methodsOf))].join(", ");
    assert.ok(row.answer.includes(`\`Allow: ${allow}\``), row.answer);
  });
});

Deno.test("cache headers by path class: the same default on 200, 206, HEAD and 304; errors no-store", async (t) => {
  const CATALOG = "public, max-age=60, must-revalidate";
  const ARTIFACT = "public, max-age=31536000, immutable";
  const store = memoryStore({
    "p/streams/v1/index.json": object("{}", { contentType: "application/json" }),
    "p/images/a/rootfs": object(BODY),
    "p/images/a/own": object(BODY, { cacheControl: "no-cache" }),
    "p/images/a/expires": object(BODY, { expires: "Thu, 01 Jan 2099 00:00:00 GMT" }),
    "p/other/file": object(BODY),
  });
  const app = createApp({
    objects: {
      store,
      prefix: "p/",
      limiter: createStreamLimiter(8),
      upstreamIdleMs: 5_000,
      writeIdleMs: 5_000,
      cacheDefaults: createCacheDefaults({
        catalog: { patterns: ["streams/v1/*.json"], control: CATALOG },
        artifact: { patterns: ["images/**"], control: ARTIFACT },
      }),
    },
    readyz: () => Response.json({ status: "ready" }),
    logger: recordingLogger().logger,
  });
  const call = (path: string, init: RequestInit = {}) =>
    app(new Request("http://proxy.test" + path, init), localInfo());
  for (
    const [path, expected] of [["/streams/v1/index.json", CATALOG], ["/images/a/rootfs", ARTIFACT]]
  ) {
    await t.step(`${path}: ${expected}`, async () => {
      const get = await call(path);
      assert.equal(get.status, 200);
      assert.equal(get.headers.get("cache-control"), expected);
      const etag = get.headers.get("etag")!;
      await get.body?.cancel();
      const ranged = await call(path, { headers: { range: "bytes=0-0" } });
      assert.equal(ranged.status, 206);
      assert.equal(ranged.headers.get("cache-control"), expected);
      await ranged.body?.cancel();
      const head = await call(path, { method: "HEAD" });
      assert.equal(head.headers.get("cache-control"), expected);
      for (const method of ["GET", "HEAD"]) {
        const cached = await call(path, { method, headers: { "if-none-match": etag } });
        assert.equal(cached.status, 304);
        assert.equal(cached.headers.get("cache-control"), expected);
      }
    });
  }
  await t.step("a stored Cache-Control or Expires wins; other paths get none", async () => {
    const own = await call("/images/a/own");
    assert.equal(own.headers.get("cache-control"), "no-cache");
    await own.body?.cancel();
    const expires = await call("/images/a/expires");
    assert.equal(expires.headers.get("cache-control"), null);
    assert.equal(expires.headers.get("expires"), "Thu, 01 Jan 2099 00:00:00 GMT");
    await expires.body?.cancel();
    const other = await call("/other/file");
    assert.equal(other.headers.get("cache-control"), null);
    await other.body?.cancel();
  });
  await t.step("errors on either class keep no-store", async () => {
    for (const path of ["/streams/v1/missing.json", "/images/a/missing"]) {
      const res = await call(path);
      await expectError(res, 404, "not_found");
      assert.equal(res.headers.get("cache-control"), "no-store");
    }
    const unsatisfiable = await call("/images/a/rootfs", { headers: { range: "bytes=99-" } });
    await expectError(unsatisfiable, 416, "range_not_satisfiable");
    assert.equal(unsatisfiable.headers.get("cache-control"), "no-store");
  });
});

function gzipSetup(gzipCatalog = true) {
  // Over one relay chunk (256 KiB), so the gzip body spans many reads.
  const catalog = JSON.stringify({
    products: Array.from({ length: 4000 }, (_, i) => ({ id: i, path: `images/x/${i}/rootfs` })),
  });
  const store = memoryStore({
    "p/streams/v1/images.json": object(catalog, { contentType: "application/json" }),
    "p/streams/v1/stored.json": object("\x1f\x8b-pretend", {
      contentType: "application/json",
      contentEncoding: "gzip",
    }),
    "p/streams/v1/text.json": object("{}", { contentType: "text/plain" }),
    "p/images/x/meta.json": object("{}", { contentType: "application/json" }),
  });
  const { logger, records } = recordingLogger();
  const limiter = createStreamLimiter(8);
  const app = createApp({
    objects: {
      store,
      prefix: "p/",
      limiter,
      upstreamIdleMs: 200,
      writeIdleMs: 5_000,
      gzipCatalog,
      cacheDefaults: createCacheDefaults({
        catalog: { patterns: ["streams/v1/*.json"], control: "public, max-age=60" },
        artifact: { patterns: ["images/**"], control: "immutable" },
      }),
    },
    readyz: () => Response.json({ status: "ready" }),
    logger,
  });
  const call = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    app(new Request("http://proxy.test" + path, { method, headers }), localInfo());
  return { store, catalog, call, records, limiter };
}

const GZIP = { "accept-encoding": "gzip, deflate" };
const gunzipText = async (res: Response) =>
  await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();

Deno.test("compressed catalog: gzip for clients that accept it, byte-exact, its own weak ETag", async (t) => {
  const { store, catalog, call, records, limiter } = gzipSetup();
  const stored = store.objects.get("p/streams/v1/images.json")!.meta!.etag!;
  const weak = `W/"${stored.slice(1, -1)}-gzip"`;
  await t.step("GET with Accept-Encoding: gzip", async () => {
    const res = await call("/streams/v1/images.json", GZIP);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-encoding"), "gzip");
    assert.equal(res.headers.get("vary"), "Accept-Encoding");
    assert.equal(res.headers.get("etag"), weak);
    assert.equal(res.headers.get("content-length"), null);
    assert.equal(res.headers.get("accept-ranges"), null);
    assert.equal(res.headers.get("cache-control"), "public, max-age=60");
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.equal(await gunzipText(res), catalog);
    await nextTurn();
    const record = records.findLast((r) => r.msg === "request completed")!;
    assert.ok((record["http.response.body.size"] as number) < catalog.length / 2);
    assert.equal(record["error.kind"], undefined);
    assert.equal(limiter.active, 0);
  });
  await t.step("GET without it: identity, Vary, the stored ETag and length", async () => {
    const res = await call("/streams/v1/images.json");
    assert.equal(res.headers.get("content-encoding"), null);
    assert.equal(res.headers.get("vary"), "Accept-Encoding");
    assert.equal(res.headers.get("etag"), stored);
    assert.equal(res.headers.get("content-length"), String(catalog.length));
    assert.equal(await res.text(), catalog);
  });
  await t.step("a Range gets identity, 206", async () => {
    const res = await call("/streams/v1/images.json", { ...GZIP, range: "bytes=0-9" });
    assert.equal(res.status, 206);
    assert.equal(res.headers.get("content-encoding"), null);
    assert.equal(res.headers.get("vary"), "Accept-Encoding");
    assert.equal(await res.text(), catalog.slice(0, 10));
  });
  await t.step("HEAD answers the gzip variant's headers", async () => {
    const res = await call("/streams/v1/images.json", GZIP, "HEAD");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-encoding"), "gzip");
    assert.equal(res.headers.get("etag"), weak);
    assert.equal(res.headers.get("vary"), "Accept-Encoding");
    assert.equal(res.headers.get("content-length"), null);
    assert.equal((await res.arrayBuffer()).byteLength, 0);
  });
  await t.step("conditionals compare against the variant's ETag", async () => {
    for (const method of ["GET", "HEAD"]) {
      const hit = await call("/streams/v1/images.json", { ...GZIP, "if-none-match": weak }, method);
      assert.equal(hit.status, 304);
      assert.equal(hit.headers.get("etag"), weak);
      assert.equal(hit.headers.get("vary"), "Accept-Encoding");
      assert.equal(hit.headers.get("cache-control"), "public, max-age=60");
      assert.equal(hit.headers.get("content-encoding"), null);
    }
    // The identity tag does not validate the gzip variant, nor the gzip tag the identity one.
    const other = await call("/streams/v1/images.json", { ...GZIP, "if-none-match": stored });
    assert.equal(other.status, 200);
    assert.equal(await gunzipText(other), catalog);
    const plain = await call("/streams/v1/images.json", { "if-none-match": weak });
    assert.equal(plain.status, 200);
    assert.equal(await plain.text(), catalog);
    // If-Match compares strongly: a weak tag never matches.
    const failed = await call("/streams/v1/images.json", { ...GZIP, "if-match": weak });
    await expectError(failed, 412, "precondition_failed");
    assert.equal(limiter.active, 0);
  });
  await t.step("stored encoded, not JSON, or not a catalog path: as stored, no Vary", async () => {
    for (
      const path of ["/streams/v1/stored.json", "/streams/v1/text.json", "/images/x/meta.json"]
    ) {
      const res = await call(path, GZIP);
      const expected = store.objects.get("p" + path)!;
      assert.equal(res.headers.get("vary"), null, path);
      assert.equal(res.headers.get("content-encoding"), expected.meta?.contentEncoding ?? null);
      assert.equal(res.headers.get("content-length"), String(expected.body.byteLength));
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), expected.body);
    }
  });
});

Deno.test("compressed catalog: gzipCatalog off serves identity without Vary", async () => {
  const { catalog, call } = gzipSetup(false);
  const res = await call("/streams/v1/images.json", GZIP);
  assert.equal(res.headers.get("content-encoding"), null);
  assert.equal(res.headers.get("vary"), null);
  assert.equal(await res.text(), catalog);
});

Deno.test("compressed catalog: a store that stalls mid-body cuts the gzip answer", async () => {
  const { store, call, records, limiter } = gzipSetup();
  store.stallAfter = 1000;
  const res = await call("/streams/v1/images.json", GZIP);
  assert.equal(res.headers.get("content-encoding"), "gzip");
  await assert.rejects(gunzipText(res));
  await nextTurn();
  const record = records.findLast((r) => r.msg === "request completed")!;
  assert.equal(record["error.kind"], "upstream_timeout");
  assert.equal(limiter.active, 0);
});
