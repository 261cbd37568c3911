import assert from "node:assert/strict";
import { fuzzCases, h2Statuses, runFuzz, seededRandom, sendFuzzCase } from "./raw_http_fuzz.ts";

const TARGETS = [{ method: "POST", path: "/t", headers: { "X-A": "1" }, body: '{"a":1}' }];

Deno.test("fuzzCases() is a function of the seed", () => {
  const a = fuzzCases({ seed: 9, count: 200, host: "h:1", targets: TARGETS });
  const b = fuzzCases({ seed: 9, count: 200, host: "h:1", targets: TARGETS });
  const c = fuzzCases({ seed: 10, count: 200, host: "h:1", targets: TARGETS });
  assert.equal(a.length, 200);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.map((x) => x.name), c.map((x) => x.name));
  const later = fuzzCases({ seed: 9, count: 5, host: "h:1", targets: TARGETS, first: 200 });
  assert.equal(later[0].name.split(":")[0], "200", "names go on across batches");
  assert.notDeepEqual(later[0].bytes, a[0].bytes);
  const r1 = seededRandom(1), r2 = seededRandom(1);
  for (let i = 0; i < 10; i++) assert.equal(r1(), r2());
});

Deno.test("fuzzCases() covers every family of the corpus and every delivery", () => {
  const cases = fuzzCases({ seed: 1, count: 1500, host: "h:1", targets: TARGETS });
  const kinds = new Set(cases.map((c) => c.name.split(":")[1].split("/")[0]));
  for (
    const kind of [
      "valid",
      "request-line",
      "line-endings",
      "headers",
      "cl-te",
      "dup-cl-differ",
      "cl-negative",
      "cl-huge",
      "te-bad-size",
      "expect-unread",
      "expect-then-body",
      "pipelined",
      "short-body",
      "h2-request",
      "h2-reset",
      "h2-preface",
      "tls-hello",
      "noise",
    ]
  ) assert.ok(kinds.has(kind), kind);
  const deliveries = new Set(cases.map((c) => c.delivery));
  assert.deepEqual(
    [...deliveries].sort(),
    ["abort", "cut", "half-close", "read", "read-then-abort", "trickle"],
  );
  for (const c of cases.filter((c) => c.delivery === "cut")) {
    assert.ok(c.cutAt! >= 1 && c.cutAt! <= c.bytes.length, c.name);
  }
  const tls = cases.find((c) => c.name.includes("tls-hello"))!;
  assert.deepEqual([...tls.bytes.subarray(0, 3)], [0x16, 3, 1], "a TLS handshake record");
  const h2 = cases.find((c) => c.name.includes("h2-preface"))!;
  assert.equal(
    new TextDecoder().decode(h2.bytes.subarray(0, 24)),
    "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
  );
  const valid = cases.find((c) => c.name.includes(":valid/"))!;
  assert.match(new TextDecoder().decode(valid.bytes), /^\w+ \S+ HTTP\/1\.1\r\nHost: h:1\r\n/);
});

function serve(handler: (req: Request) => Response) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  return { server, url: `http://127.0.0.1:${server.addr.port}` };
}

Deno.test("sendFuzzCase() reads statuses over HTTP/1.1 and HTTP/2 (static and Huffman)", async () => {
  const { server, url } = serve((req) => {
    const m = URL.canParse(req.url) ? /^\/s(\d{3})$/.exec(new URL(req.url).pathname) : null;
    return new Response("x", { status: m ? Number(m[1]) : 404 });
  });
  const addr = { hostname: "127.0.0.1", port: server.addr.port };
  try {
    for (const code of [200, 404, 418, 500, 503]) {
      const path = `/s${code}`;
      const cases = fuzzCases({
        seed: 2,
        count: 3000,
        host: new URL(url).host,
        targets: [{ method: "GET", path }],
      }).filter((c) =>
        c.delivery === "read" && new TextDecoder("latin1").decode(c.bytes).includes(path)
      );
      const h1 = cases.find((c) => c.name.includes(":valid/"))!;
      const h2 = cases.find((c) => c.name.includes(":h2-request/"))!;
      assert.deepEqual((await sendFuzzCase(addr, h1)).statuses, [code], `h1 ${code}`);
      assert.deepEqual((await sendFuzzCase(addr, h2)).statuses, [code], `h2 ${code}`);
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("h2Statuses() reads indexed and literal :status fields", () => {
  const frame = (block: number[]) => [0, 0, block.length, 1, 4, 0, 0, 0, 1, ...block];
  const settings = [0, 0, 0, 4, 0, 0, 0, 0, 0];
  assert.deepEqual(h2Statuses(new Uint8Array([...settings, ...frame([0x88])])), [200]);
  assert.deepEqual(h2Statuses(new Uint8Array(frame([0x8e]))), [500]);
  // Literal with indexing, name :status (8), plain "503".
  assert.deepEqual(h2Statuses(new Uint8Array(frame([0x48, 3, 0x35, 0x30, 0x33]))), [503]);
  // Huffman "502": 011011 00000 00010 = 0x6c 0x02; "404": 011010 00000 011010 + 7 padding bits.
  assert.deepEqual(h2Statuses(new Uint8Array(frame([0x48, 0x82, 0x6c, 0x02]))), [502]);
  assert.deepEqual(h2Statuses(new Uint8Array(frame([0x08, 0x83, 0x68, 0x0d, 0x7f]))), [404]);
  assert.deepEqual(h2Statuses(new Uint8Array(frame([0x40, 1, 0x78, 1, 0x79]))), [0], "not :status");
});

Deno.test("runFuzz() reports 5xx answers and a dead health route, naming the seed", async () => {
  let healthy = true;
  const { server, url } = serve((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/healthz") return new Response(null, { status: healthy ? 200 : 500 });
    return new Response("x", { status: path === "/boom" ? 500 : 404 });
  });
  try {
    const report = await runFuzz({
      url,
      seed: 5,
      batches: 2,
      perBatch: 40,
      readMs: 300,
      targets: [{ method: "POST", path: "/boom", body: "{}" }],
    });
    assert.equal(report.seed, 5);
    assert.equal(report.sent, 80);
    assert.ok(report.statuses["500"] > 0, JSON.stringify(report.statuses));
    assert.ok(report.failures.length > 0);
    assert.ok(report.failures.every((f) => f.startsWith("[FUZZ_SEED=5] ")), report.failures[0]);
    assert.match(report.failures[0], /answered 500/);

    healthy = false;
    const dead = await runFuzz({
      url,
      seed: 6,
      batches: 3,
      perBatch: 10,
      readMs: 300,
      targets: [],
    });
    assert.equal(dead.sent, 10, "stops after the first batch the health route fails");
    assert.match(dead.failures.at(-1)!, /after batch 1 \(cases 0\.\.9\): \/healthz status 500/);
  } finally {
    await server.shutdown();
  }
});
