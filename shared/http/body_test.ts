import assert from "node:assert/strict";
import {
  PAGE_BACKED_MIN,
  readBody,
  readJson,
  readStream,
  readText,
  withBodyBytes,
} from "./body.ts";
import { errorResponse, HttpError } from "./problem.ts";

function streamOf(chunks: string[]) {
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
}

function post(body: BodyInit | null, headers: HeadersInit = {}) {
  return new Request("http://x/", { method: "POST", body, headers });
}

async function rejectsWith(p: Promise<unknown>, status: number, code: string) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof HttpError);
    assert.equal(e.status, status);
    assert.equal(e.code, code);
    return true;
  });
}

Deno.test("readBody() accepts bodies at the limit and refuses one byte more", async (t) => {
  await t.step("at limit", async () => {
    assert.equal((await readBody(post("x".repeat(10)), { limit: 10 })).byteLength, 10);
  });
  await t.step("below limit", async () => {
    assert.equal((await readBody(post("x".repeat(9)), { limit: 10 })).byteLength, 9);
  });
  await t.step("above limit", async () => {
    await rejectsWith(readBody(post("x".repeat(11)), { limit: 10 }), 413, "body_too_large");
  });
  await t.step("declared Content-Length over the limit", async () => {
    const req = post("x", { "content-length": "11" });
    await rejectsWith(readBody(req, { limit: 10 }), 413, "body_too_large");
  });
  await t.step("streamed body that grows past the limit", async () => {
    await rejectsWith(
      readBody(post(streamOf(["12345", "678901"])), { limit: 10 }),
      413,
      "body_too_large",
    );
  });
  await t.step("streamed body within the limit is joined", async () => {
    const bytes = await readBody(post(streamOf(["12345", "67890"])), { limit: 10 });
    assert.equal(new TextDecoder().decode(bytes), "1234567890");
  });
  await t.step("no body", async () => {
    assert.equal((await readBody(new Request("http://x/"), { limit: 10 })).byteLength, 0);
  });
});

Deno.test("readJson() parses JSON and reports malformed bodies as 400", async () => {
  assert.deepEqual(await readJson(post('{"a":[1]}'), { limit: 100 }), { a: [1] });
  await rejectsWith(readJson(post("{nope"), { limit: 100 }), 400, "malformed_json");
  await rejectsWith(readJson(post(""), { limit: 100 }), 400, "malformed_json");
  await rejectsWith(
    readJson(post(new Uint8Array([0x22, 0xff, 0x22])), { limit: 100 }),
    400,
    "malformed_json",
  );
});

Deno.test("readBody() gives up with 408 when the body arrives too slowly", async () => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const slow = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([1]));
      // real clock: a body whose end arrives after readBody's timeout, a real timer
      timer = setTimeout(() => c.close(), 500);
    },
  });
  await rejectsWith(readBody(post(slow), { limit: 10, timeoutMs: 30 }), 408, "body_timeout");
  clearTimeout(timer);
});

Deno.test("readBody answers 400 body_unreadable when the body stream fails", async () => {
  const broken = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array([1, 2]));
      controller.error(new TypeError("chunked encoding error"));
    },
  });
  const req = new Request("http://x", { method: "POST", body: broken });
  await assert.rejects(
    readBody(req, { limit: 1024 }),
    (err: HttpError) => err.status === 400 && err.code === "body_unreadable",
  );
});

Deno.test("readStream reads a stream up to its limit: at the limit passes, one byte over is 413", async () => {
  const stream = () => new Response("12345").body!;
  assert.equal((await readStream(stream(), { limit: 5 })).length, 5);
  assert.equal((await readStream(stream(), { limit: 6 })).length, 5);
  await assert.rejects(
    readStream(stream(), { limit: 4 }),
    (err: HttpError) => err.status === 413 && err.code === "body_too_large",
  );
});

Deno.test("readBody() reads a declared length into one buffer of exactly that size", async (t) => {
  const owns = (b: Uint8Array) => b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
  await t.step("declared and sent agree", async () => {
    const bytes = await readBody(post(streamOf(["12345", "678"]), { "content-length": "8" }), {
      limit: 10,
    });
    assert.equal(new TextDecoder().decode(bytes), "12345678");
    assert.ok(owns(bytes));
  });
  await t.step("fewer bytes than declared (a hand-made request)", async () => {
    const bytes = await readBody(post(streamOf(["123"]), { "content-length": "8" }), {
      limit: 10,
    });
    assert.equal(new TextDecoder().decode(bytes), "123");
    assert.ok(owns(bytes));
  });
  await t.step("more bytes than declared are still read, up to the limit", async () => {
    const req = post(streamOf(["12345", "678"]), { "content-length": "5" });
    assert.equal(new TextDecoder().decode(await readBody(req, { limit: 10 })), "12345678");
    const over = post(streamOf(["12345", "678901"]), { "content-length": "5" });
    await rejectsWith(readBody(over, { limit: 10 }), 413, "body_too_large");
  });
  await t.step("a chunked body is joined into a buffer of its own", async () => {
    assert.ok(owns(await readBody(post(streamOf(["ab", "cd"])), { limit: 10 })));
  });
});

Deno.test("readBody() takes a declared body whole, without making the request's body stream", async (t) => {
  // On a `Deno.serve` request the `body` getter builds a stream, and `arrayBuffer()` then reads
  // it chunk by chunk: a declared body must not ask for it.
  function watched(req: Request) {
    let touched = 0;
    const body = Object.getOwnPropertyDescriptor(Request.prototype, "body")!.get!;
    Object.defineProperty(req, "body", {
      get() {
        touched++;
        return body.call(req);
      },
    });
    return { req, touched: () => touched };
  }
  await t.step("declared length: the stream is never asked for", async () => {
    const w = watched(post("12345", { "content-length": "5" }));
    assert.equal(new TextDecoder().decode(await readBody(w.req, { limit: 10 })), "12345");
    assert.equal(w.touched(), 0);
  });
  await t.step("declared 0 and no body at all: empty, still without the stream", async () => {
    const w = watched(
      new Request("http://x/", { method: "POST", headers: { "content-length": "0" } }),
    );
    assert.equal((await readBody(w.req, { limit: 10 })).byteLength, 0);
    assert.equal(w.touched(), 0);
  });
  await t.step("no declared length: the stream is read", async () => {
    const w = watched(post(streamOf(["ab", "c"])));
    assert.equal(new TextDecoder().decode(await readBody(w.req, { limit: 10 })), "abc");
    assert.ok(w.touched() > 0);
  });
});

Deno.test("withBodyBytes() hands readBody the same bytes, without a copy", async (t) => {
  const original = post("a=1&b=2", { "content-type": "application/x-www-form-urlencoded" });
  const bytes = await readBody(original, { limit: 100 });
  const forwarded = withBodyBytes(original, bytes);
  await t.step("same method, URL and headers", () => {
    assert.equal(forwarded.method, "POST");
    assert.equal(forwarded.url, "http://x/");
    assert.equal(forwarded.headers.get("content-type"), "application/x-www-form-urlencoded");
  });
  await t.step("readBody gives the very same bytes", async () => {
    assert.equal(await readBody(forwarded, { limit: 100 }), bytes);
  });
  await t.step("the limit still holds: at, below, above", async () => {
    assert.equal(await readBody(forwarded, { limit: 7 }), bytes);
    await rejectsWith(readBody(forwarded, { limit: 6 }), 413, "body_too_large");
    assert.equal(await readBody(forwarded, { limit: 8 }), bytes);
  });
  await t.step("its body stream still gives the bytes (a copy)", async () => {
    assert.equal(await withBodyBytes(original, bytes).text(), "a=1&b=2");
  });
  await t.step("GET and empty bodies forward no body", () => {
    const get = withBodyBytes(new Request("http://x/"), new Uint8Array(0));
    assert.equal(get.body, null);
    assert.equal(withBodyBytes(post(null), new Uint8Array(0)).body, null);
  });
});

Deno.test("readBody() with releaseChunks frees each chunk once copied, and only then", async (t) => {
  const chunksOf = (parts: Uint8Array[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(p);
        c.close();
      },
    });
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  await t.step("declared length: every chunk's buffer is detached", async () => {
    const parts = [new TextEncoder().encode("abc"), new TextEncoder().encode("de")];
    const req = post(chunksOf(parts), { "content-length": "5" });
    assert.equal(text(await readBody(req, { limit: 10, releaseChunks: true })), "abcde");
    assert.deepEqual(parts.map((p) => p.buffer.detached), [true, true]);
  });
  await t.step("chunked: detached after the join", async () => {
    const parts = [new TextEncoder().encode("abc"), new TextEncoder().encode("de")];
    assert.equal(
      text(await readBody(post(chunksOf(parts)), { limit: 10, releaseChunks: true })),
      "abcde",
    );
    assert.deepEqual(parts.map((p) => p.buffer.detached), [true, true]);
  });
  await t.step("consecutive views of one buffer are all copied first", async () => {
    const shared = new TextEncoder().encode("abcdef");
    const parts = [shared.subarray(0, 2), shared.subarray(2, 4), shared.subarray(4)];
    const req = post(chunksOf(parts), { "content-length": "6" });
    assert.equal(text(await readBody(req, { limit: 10, releaseChunks: true })), "abcdef");
    assert.equal(shared.buffer.detached, true);
  });
  await t.step("without the option nothing is detached", async () => {
    const parts = [new TextEncoder().encode("abc"), new TextEncoder().encode("de")];
    const req = post(chunksOf(parts), { "content-length": "5" });
    assert.equal(text(await readBody(req, { limit: 10 })), "abcde");
    assert.deepEqual(parts.map((p) => p.buffer.detached), [false, false]);
  });
  await t.step("bytes handed on by withBodyBytes are never detached", async () => {
    const bytes = new TextEncoder().encode("kept");
    const forwarded = withBodyBytes(post("kept"), bytes);
    assert.equal(await readBody(forwarded, { limit: 10, releaseChunks: true }), bytes);
    assert.equal(bytes.buffer.detached, false);
  });
});

Deno.test("readBody() with pageBacked maps bodies from PAGE_BACKED_MIN bytes up", async (t) => {
  const resizable = async (n: number, headers: HeadersInit = {}) => {
    const body = new Uint8Array(n).fill(7);
    const bytes = await readBody(post(body, headers), { limit: 2 * n, pageBacked: true });
    assert.equal(bytes.byteLength, n);
    assert.ok(bytes.every((b) => b === 7));
    return (bytes.buffer as ArrayBuffer).resizable;
  };
  for (const declared of [true, false]) {
    const headers = (n: number): HeadersInit => declared ? { "content-length": String(n) } : {};
    const label = declared ? "declared length" : "no declared length";
    await t.step(`${label}: one byte below stays in malloc`, async () => {
      assert.equal(await resizable(PAGE_BACKED_MIN - 1, headers(PAGE_BACKED_MIN - 1)), false);
    });
    await t.step(`${label}: at the bound and above is page-backed`, async () => {
      assert.equal(await resizable(PAGE_BACKED_MIN, headers(PAGE_BACKED_MIN)), true);
      assert.equal(await resizable(PAGE_BACKED_MIN + 1, headers(PAGE_BACKED_MIN + 1)), true);
    });
  }
  await t.step("without the option nothing is resizable", async () => {
    const bytes = await readBody(post(new Uint8Array(PAGE_BACKED_MIN)), { limit: 1e6 });
    assert.equal((bytes.buffer as ArrayBuffer).resizable, false);
  });
});

Deno.test("readBody() and readText() over a real socket: whole bodies read, stalled ones get 408 in time", async (t) => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    try {
      const options = { limit: 200_000, timeoutMs: 100 };
      if (new URL(req.url).pathname === "/text") {
        return new Response(`read ${JSON.stringify(await readText(req, options))}`);
      }
      const bytes = await readBody(req, options);
      return new Response(`read ${bytes.byteLength}`);
    } catch (err) {
      return errorResponse(err);
    }
  });
  const exchange = async (head: string, body: string) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    const started = performance.now();
    await conn.write(new TextEncoder().encode(head + body));
    let text = "";
    const buf = new Uint8Array(4096);
    const giveUp = setTimeout(() => conn.close(), 5000);
    try {
      for (;;) { // read until a whole response is in (or 5 s pass)
        const n = await conn.read(buf);
        if (n === null) break;
        text += new TextDecoder().decode(buf.subarray(0, n));
        if (/\r\n\r\n(read (\d+|".*")|\{.*\})$/.test(text)) break;
      }
    } catch {
      // closed by the give-up timer
    } finally {
      clearTimeout(giveUp);
    }
    try {
      conn.close();
    } catch {
      // already closed
    }
    return { text, ms: performance.now() - started };
  };
  const post = (headers: string, path = "/") =>
    `POST ${path} HTTP/1.1\r\nhost: x\r\n${headers}\r\n`;
  try {
    await t.step("a declared length that arrives whole", async () => {
      const { text } = await exchange(post("content-length: 5\r\nconnection: close\r\n"), "hello");
      assert.match(text, /^HTTP\/1.1 200[\s\S]*read 5$/);
    });
    // Deno 2.9 keeps the socket of a request whose body never ended open after the response,
    // even with `Connection: close`; the client is told, and the server's memory is bounded.
    await t.step("a declared length that stalls: 408 with Connection: close", async () => {
      const { text, ms } = await exchange(post("content-length: 10\r\n"), "abc");
      assert.match(text, /^HTTP\/1.1 408[\s\S]*connection: close[\s\S]*"status":408/);
      assert.ok(ms < 2000, `the 408 came after ${ms} ms`);
    });
    await t.step("a large declared length that stalls (the chunk loop): 408", async () => {
      const { text, ms } = await exchange(post("content-length: 100000\r\n"), "abc");
      assert.match(text, /^HTTP\/1.1 408[\s\S]*connection: close[\s\S]*"status":408/);
      assert.ok(ms < 2000, `the 408 came after ${ms} ms`);
    });
    await t.step("a chunked body that stalls: 408 with Connection: close", async () => {
      const { text, ms } = await exchange(post("transfer-encoding: chunked\r\n"), "3\r\nabc\r\n");
      assert.match(text, /^HTTP\/1.1 408[\s\S]*connection: close[\s\S]*"status":408/);
      assert.ok(ms < 2000, `the 408 came after ${ms} ms`);
    });
    await t.step("readText: a declared length that arrives whole, decoded", async () => {
      const head = post("content-length: 6\r\nconnection: close\r\n", "/text");
      const { text } = await exchange(head, "h\u00e9llo");
      assert.match(text, /^HTTP\/1.1 200[\s\S]*read "h\u00e9llo"$/);
    });
    await t.step(
      "readText: a declared length that stalls: 408 with Connection: close",
      async () => {
        const { text, ms } = await exchange(post("content-length: 10\r\n", "/text"), "abc");
        assert.match(text, /^HTTP\/1.1 408[\s\S]*connection: close[\s\S]*"status":408/);
        assert.ok(ms < 2000, `the 408 came after ${ms} ms`);
      },
    );
    await t.step("readText: a chunked body that stalls: 408", async () => {
      const head = post("transfer-encoding: chunked\r\n", "/text");
      const { text, ms } = await exchange(head, "3\r\nabc\r\n");
      assert.match(text, /^HTTP\/1.1 408[\s\S]*connection: close[\s\S]*"status":408/);
      assert.ok(ms < 2000, `the 408 came after ${ms} ms`);
    });
  } finally {
    await server.shutdown();
  }
});

Deno.test("readText() accepts bodies at the limit and refuses one byte more", async (t) => {
  for (const declared of [true, false]) {
    const body = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      return declared
        ? post(text, { "content-length": String(bytes.byteLength) })
        : post(streamOf([text]));
    };
    const label = declared ? "declared length" : "no declared length";
    await t.step(`${label}: at, below and above the limit (two-byte characters)`, async () => {
      assert.equal(await readText(body("\u00e9".repeat(5)), { limit: 10 }), "\u00e9".repeat(5));
      assert.equal(await readText(body("\u00e9".repeat(4) + "x"), { limit: 10 }), "ééééx");
      await rejectsWith(
        readText(body("\u00e9".repeat(5) + "x"), { limit: 10 }),
        413,
        "body_too_large",
      );
    });
  }
  await t.step("declared Content-Length over the limit", async () => {
    await rejectsWith(
      readText(post("x", { "content-length": "11" }), { limit: 10 }),
      413,
      "body_too_large",
    );
  });
  await t.step("no body", async () => {
    assert.equal(await readText(new Request("http://x/"), { limit: 10 }), "");
  });
});

Deno.test("readText() decodes as TextDecoder does: BOM dropped, malformed bytes as U+FFFD", async () => {
  const samples = [
    new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // BOM first
    new Uint8Array([0x7b, 0xef, 0xbb, 0xbf, 0x7d]), // U+FEFF inside: kept
    new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), // not UTF-8
    new Uint8Array([0x7b, 0xed, 0xa0, 0x80, 0x7d]), // an encoded surrogate
    new Uint8Array([0x7b, 0xe2, 0x82]), // cut off
  ];
  for (const bytes of samples) {
    const expected = new TextDecoder().decode(bytes);
    const declared = post(bytes, { "content-length": String(bytes.byteLength) });
    assert.equal(await readText(declared, { limit: 100 }), expected);
    assert.equal(await readText(post(bytes), { limit: 100 }), expected);
    const handedOn = withBodyBytes(post(bytes), bytes);
    assert.equal(await readText(handedOn, { limit: 100 }), expected);
  }
});

Deno.test("readText() measures a hand-made body longer than it declares by its text", async (t) => {
  await t.step("one-byte characters: at the limit read, one more refused", async () => {
    const at = post(streamOf(["12345", "67890"]), { "content-length": "5" });
    assert.equal(await readText(at, { limit: 10 }), "1234567890");
    const over = post(streamOf(["12345", "678901"]), { "content-length": "5" });
    await rejectsWith(readText(over, { limit: 10 }), 413, "body_too_large");
  });
  await t.step("multi-byte characters count as their UTF-8 bytes", async () => {
    const over = post(streamOf(["\u20ac".repeat(4)]), { "content-length": "3" }); // 12 bytes
    await rejectsWith(readText(over, { limit: 11 }), 413, "body_too_large");
    const at = post(streamOf(["\u{1f600}".repeat(3)]), { "content-length": "4" }); // 12 bytes
    assert.equal(await readText(at, { limit: 12 }), "\u{1f600}".repeat(3));
  });
  await t.step("a U+FFFD counts one byte (it may stand for one malformed byte)", async () => {
    const malformed = new Uint8Array(12).fill(0xff);
    const req = post(malformed, { "content-length": "4" });
    assert.equal(await readText(req, { limit: 12 }), "\ufffd".repeat(12));
  });
});
