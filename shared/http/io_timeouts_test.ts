import assert from "node:assert/strict";
import { concurrentSteps, waitUntil } from "@svc/testing";
import { readUntilClosed } from "@svc/testing/hostile";
import { createLogger } from "../observe/log.ts";
import { HttpError } from "./problem.ts";
import { startServer } from "./server.ts";
import { localInfo } from "./handler.ts";
import { withErrors } from "./errors.ts";
import { withReadTimeout, withWriteTimeout, WriteTimeoutError } from "./io_timeouts.ts";

const quiet = createLogger({ level: "error", write: () => {} });

/** A request body that sends `first` and then never ends. */
function stalledBody(first = "a=1") {
  return new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(first));
    },
  });
}

Deno.test("withReadTimeout() bounds the arrival of a request body", async (t) => {
  const echo = withReadTimeout(async (req) => new Response(await req.text()), { ms: 200 });
  await t.step("a body that has arrived is read as usual", async () => {
    const req = new Request("http://x/", { method: "POST", body: "hello" });
    assert.equal(await (await echo(req, localInfo())).text(), "hello");
  });
  await t.step(
    "a body still arriving at the bound fails reading with 408 body_timeout",
    async () => {
      const req = new Request("http://x/", { method: "POST", body: stalledBody() });
      await assert.rejects(
        async () => await echo(req, localInfo()),
        (e: unknown) => e instanceof HttpError && e.status === 408 && e.code === "body_timeout",
      );
    },
  );
  await t.step("requests without a body and a bound of 0 pass through untouched", async () => {
    const same = (expected: Request) => (req: Request) =>
      new Response(req === expected ? "same" : "copy");
    const get = new Request("http://x/");
    const res = await withReadTimeout(same(get), { ms: 200 })(get, localInfo());
    assert.equal(await res.text(), "same");
    const post = new Request("http://x/", { method: "POST", body: "x" });
    const off = await withReadTimeout(same(post), { ms: 0 })(post, localInfo());
    assert.equal(await off.text(), "same");
    const on = await withReadTimeout(same(post), { ms: 200 })(post, localInfo());
    assert.equal(await on.text(), "copy");
  });
  await t.step("headers, method and URL survive", async () => {
    const seen = await withReadTimeout(
      (req) => new Response(`${req.method} ${req.url} ${req.headers.get("x-a")}`),
      { ms: 1_000 },
    )(
      new Request("http://x/p?q=1", { method: "PUT", body: "b", headers: { "x-a": "1" } }),
      localInfo(),
    );
    assert.equal(await seen.text(), "PUT http://x/p?q=1 1");
  });
});

Deno.test("withWriteTimeout() bounds the delivery of a response body", async (t) => {
  await t.step("a ready body goes out as bytes, headers and status kept", async () => {
    const res = await withWriteTimeout(
      () => new Response("created", { status: 201, headers: { "x-a": "1" } }),
      { ms: 1_000 },
    )(new Request("http://x/"), localInfo());
    assert.deepEqual([res.status, res.headers.get("x-a"), await res.text()], [201, "1", "created"]);
  });
  await t.step("a stream the client does not take is cut with WriteTimeoutError", async () => {
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new Uint8Array(1024));
      },
    });
    const res = await withWriteTimeout(() => new Response(endless), { ms: 200 })(
      new Request("http://x/"),
      localInfo(),
    );
    const reader = res.body!.getReader();
    await reader.read(); // the first chunk; then nobody reads until after the bound
    // real clock: the write timeout (the subject) is a real timer: nobody reads until past it
    await new Promise((r) => setTimeout(r, 600));
    await assert.rejects(
      async () => {
        for (;;) if ((await reader.read()).done) break;
      },
      WriteTimeoutError,
    );
  });
  await t.step("a stream taken in time is passed on whole", async () => {
    let n = 0;
    const counted = new ReadableStream<Uint8Array>({
      async pull(c) {
        // real clock: a stream that produces slowly, within the write timeout
        await new Promise((r) => setTimeout(r, 5));
        if (n++ === 10) c.close();
        else c.enqueue(new Uint8Array(100));
      },
    });
    const res = await withWriteTimeout(() => new Response(counted), { ms: 10_000 })(
      new Request("http://x/"),
      localInfo(),
    );
    assert.equal((await res.arrayBuffer()).byteLength, 1_000);
  });
});

Deno.test("startServer() enforces the read and write timeouts on real connections", async (t) => {
  const CHUNK = new Uint8Array(64 * 1024);
  const TOTAL = 512 * 1024 * 1024; // far more than loopback socket buffers hold
  const BYTES = 48 * 1024 * 1024; // one in-memory chunk, still far more than they hold
  let streamsCut = 0;
  const app = withErrors((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/echo") return req.text().then((text) => new Response(text));
    if (path === "/small") return new Response("small body");
    if (path === "/bytes") return new Response(new Uint8Array(BYTES));
    let sent = 0;
    return new Response(
      new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent >= TOTAL) return c.close();
          sent += CHUNK.byteLength;
          c.enqueue(CHUNK);
        },
        cancel() {
          streamsCut++; // the write timeout gave up on this body
        },
      }, { highWaterMark: 0 }),
      { headers: { "content-length": String(TOTAL) } },
    );
  }, { logger: quiet });
  const server = await startServer([{ name: "api", addr: "127.0.0.1:0", handler: app }], {
    logger: quiet,
    handleSignals: false,
    timeouts: { readMs: 300, writeMs: 300 },
  });
  const { port } = new URL(server.urls.api);
  const connect = () => Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  const enc = new TextEncoder();
  try {
    await t.step("a stalled request body is answered 408 at the read timeout", async () => {
      const conn = await connect();
      await conn.write(enc.encode(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part of it",
      ));
      const { head } = await readUntilClosed(conn, 1);
      conn.close();
      assert.match(head, /^HTTP\/1\.1 408 /);
    });
    await t.step("a body that arrives in time is read", async () => {
      const res = await fetch(`${server.urls.api}/echo`, { method: "POST", body: "hello" });
      assert.equal(await res.text(), "hello");
    });
    // Two clients that do not read, on connections of their own: side by side.
    const stalled: [string, () => Promise<void>][] = [
      ["a client that does not read is cut off at the write timeout", async () => {
        const conn = await connect();
        await conn.write(enc.encode("GET /big HTTP/1.1\r\nHost: x\r\n\r\n"));
        // Nobody reads until the server has given up on the stream (it cancels it).
        await waitUntil(() => streamsCut === 1, { what: "the write timeout", timeoutMs: 20_000 });
        const { head, bytes } = await readUntilClosed(conn);
        conn.close();
        assert.match(head, /^HTTP\/1\.1 200 /);
        assert.ok(bytes < TOTAL, `the whole body arrived (${bytes} bytes)`);
      }],
      ["one big in-memory body is cut for a client that does not read", async () => {
        const conn = await connect();
        await conn.write(enc.encode("GET /bytes HTTP/1.1\r\nHost: x\r\n\r\n"));
        // Nobody reads for ten times the bound; the server must give up meanwhile.
        // real clock: the server's write timeout is a real timer, and an in-memory body gives
        // no event when it is cut; stay silent past it
        await new Promise((r) => setTimeout(r, 3_000));
        const { head, bytes } = await readUntilClosed(conn);
        conn.close();
        assert.match(head, /content-length: 50331648/i);
        assert.ok(bytes < BYTES, `the whole body arrived (${bytes} bytes)`);
      }],
    ];
    await concurrentSteps(t, stalled, { concurrency: 2, name: ([name]) => name }, ([, fn]) => fn());
    await t.step("and arrives whole, with Content-Length, for a client that reads", async () => {
      // Its own server with a bound no transfer on loopback comes near, however loaded.
      const patient = await startServer([{ name: "api", addr: "127.0.0.1:0", handler: app }], {
        logger: quiet,
        handleSignals: false,
        timeouts: { writeMs: 120_000 },
      });
      try {
        const res = await fetch(`${patient.urls.api}/bytes`);
        assert.equal(res.headers.get("content-length"), String(BYTES));
        assert.equal((await res.arrayBuffer()).byteLength, BYTES);
      } finally {
        await patient.shutdown();
      }
    });
    await t.step("small responses keep Content-Length; the server still answers", async () => {
      const res = await fetch(`${server.urls.api}/small`);
      assert.equal(res.headers.get("content-length"), "10");
      assert.equal(await res.text(), "small body");
    });
  } finally {
    await server.shutdown();
  }
});
