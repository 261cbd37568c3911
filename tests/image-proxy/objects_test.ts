/**
 * Object reads end to end: the proxy process, its real `@aws-sdk/client-s3`, a signature-checking
 * s3rver. Every row of the status table a client can reach with a healthy store, the header
 * allowlist, Range / If-Range / conditionals, and the traversal corpus sent as raw bytes.
 */
import assert from "node:assert/strict";
import { TRAVERSAL_CORPUS } from "../../services/image-proxy/object/_test_support.ts";
import { OBJECT_HEADERS } from "../../services/image-proxy/object/headers.ts";
import { faultsFor, rawRequest, startProxyProcess, startStore } from "./_test_support.ts";
import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";

/** A GET that keeps the bytes on the wire (fetch would decompress them). */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Uint8Array }>(
    (resolve, reject) => {
      const req = httpRequest(url, { headers }, (res) => {
        const parts: Uint8Array[] = [];
        res.on("data", (c: Uint8Array) => parts.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: new Uint8Array(Buffer.concat(parts)),
          }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    },
  );
}

const ALLOWED = new Set<string>([...OBJECT_HEADERS, "x-request-id", "date"]);

async function errorOf(res: Response) {
  assert.equal(res.headers.get("content-type"), "application/json");
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), ["code", "request_id"]);
  assert.equal(body.request_id, res.headers.get("x-request-id"));
  return body.code as string;
}

Deno.test("image-proxy serves the mirror from s3rver as the contract's tables say", async (t) => {
  const store = await startStore();
  const faults = await faultsFor(store);
  const body = new TextEncoder().encode("0123456789".repeat(10));
  await store.put("images/x/20250824_13:00/file.bin", body, {
    ContentType: "application/octet-stream",
    CacheControl: "public, max-age=300",
    ContentDisposition: 'attachment; filename="file.bin"',
    ContentLanguage: "de",
    Expires: new Date("2044-12-01T16:00:00Z"),
    Metadata: { owner: "secret-team" },
    WebsiteRedirectLocation: "/elsewhere",
  });
  const proxy = await startProxyProcess({ endpoint: faults.endpoint });
  const url = (path: string) => proxy.url + path;
  const port = Number(new URL(proxy.url).port);
  const FILE = "/images/x/20250824_13:00/file.bin";
  try {
    await t.step("200 with the exact bytes and only the allowlisted headers", async () => {
      const res = await fetch(url(FILE));
      assert.equal(res.status, 200);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), body);
      for (const name of res.headers.keys()) assert.ok(ALLOWED.has(name), `forwarded ${name}`);
      assert.equal(res.headers.get("content-length"), "100");
      assert.equal(res.headers.get("accept-ranges"), "bytes");
      assert.equal(res.headers.get("cache-control"), "public, max-age=300");
      assert.equal(res.headers.get("content-disposition"), 'attachment; filename="file.bin"');
      assert.equal(res.headers.get("expires"), "Thu, 01 Dec 2044 16:00:00 GMT");
      assert.match(res.headers.get("etag")!, /^"[0-9a-f]{32}"$/);
      assert.match(res.headers.get("last-modified")!, /GMT$/);
    });
    await t.step(
      "a large object arrives byte for byte, to a fast and to a slow reader",
      async () => {
        // Many relay chunks (whose buffers are freed as the server writes them), whole and ranged.
        const big = new Uint8Array(3 * 1024 * 1024 + 7).map((_, i) => (i * 31 + (i >> 13)) & 0xff);
        await store.put("images/big.bin", big);
        const read = async (res: Response, pauseMs: number) => {
          const parts: Uint8Array[] = [];
          for await (const chunk of res.body!) {
            parts.push(chunk.slice());
            // real clock: a slow reader, so the proxy's relay meets backpressure
            if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
          }
          const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
          parts.reduce((at, p) => (out.set(p, at), at + p.byteLength), 0);
          return out;
        };
        assert.deepEqual(await read(await fetch(url("/images/big.bin")), 0), big);
        assert.deepEqual(await read(await fetch(url("/images/big.bin")), 3), big);
        const ranged = await fetch(url("/images/big.bin"), { headers: { range: "bytes=1000-" } });
        assert.equal(ranged.status, 206);
        assert.deepEqual(await read(ranged, 0), big.subarray(1000));
      },
    );
    await t.step(
      "objects stored without caching fields get their path class's default",
      async () => {
        await store.put("streams/v1/images.json", new TextEncoder().encode("{}"), {
          ContentType: "application/json",
        });
        await store.put("images/x/plain.bin", body);
        await store.put("other/plain.bin", body);
        const expected: [string, string | null][] = [
          ["/streams/v1/images.json", "public, max-age=60, must-revalidate"],
          ["/images/x/plain.bin", "public, max-age=31536000, immutable"],
          ["/other/plain.bin", null],
          [FILE, "public, max-age=300"], // stored: its own
        ];
        for (const [path, control] of expected) {
          const res = await fetch(url(path));
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("cache-control"), control, path);
          const etag = res.headers.get("etag")!;
          await res.body?.cancel();
          const cached = await fetch(url(path), { headers: { "if-none-match": etag } });
          assert.equal(cached.status, 304);
          assert.equal(cached.headers.get("cache-control"), control, path);
        }
        const missing = await fetch(url("/images/x/missing.bin"));
        assert.equal(await errorOf(missing), "not_found");
        assert.equal(missing.headers.get("cache-control"), "no-store");
      },
    );
    await t.step("the JSON catalog travels gzipped to a client that accepts it", async () => {
      const catalog = new TextEncoder().encode(
        JSON.stringify({ products: Array.from({ length: 3000 }, (_, i) => ({ id: i })) }),
      );
      await store.put("streams/v1/big.json", catalog, { ContentType: "application/json" });
      const gz = await rawGet(url("/streams/v1/big.json"), { "accept-encoding": "gzip" });
      assert.equal(gz.status, 200);
      assert.equal(gz.headers["content-encoding"], "gzip");
      assert.equal(gz.headers["vary"], "Accept-Encoding");
      assert.match(String(gz.headers["etag"]), /^W\/"[0-9a-f]{32}-gzip"$/);
      assert.ok(gz.body.byteLength < catalog.byteLength / 4, `${gz.body.byteLength} on the wire`);
      assert.deepEqual(new Uint8Array(gunzipSync(gz.body)), catalog);
      const again = await rawGet(url("/streams/v1/big.json"), {
        "accept-encoding": "gzip",
        "if-none-match": String(gz.headers["etag"]),
      });
      assert.equal(again.status, 304);
      const head = await fetch(url("/streams/v1/big.json"), {
        method: "HEAD",
        headers: { "accept-encoding": "gzip" },
      });
      assert.equal(head.headers.get("content-encoding"), "gzip");
      assert.equal(head.headers.get("etag"), gz.headers["etag"]);
      assert.equal(head.headers.get("content-length"), null);
      await head.body?.cancel();
      const plain = await rawGet(url("/streams/v1/big.json"), {});
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.equal(plain.headers["content-length"], String(catalog.byteLength));
      assert.deepEqual(plain.body, catalog);
    });
    await t.step("the colon may come raw or as %3A", async () => {
      const res = await fetch(url("/images/x/20250824_13%3A00/file.bin"));
      assert.equal(res.status, 200);
      assert.equal((await res.arrayBuffer()).byteLength, 100);
    });
    await t.step("HEAD: the GET headers, no body", async () => {
      const res = await fetch(url(FILE), { method: "HEAD" });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-length"), "100");
      assert.equal(await res.text(), "");
    });
    await t.step("206 for one range, suffix ranges computed by the proxy", async () => {
      for (
        const [range, text, cr] of [
          ["bytes=0-", "0123456789".repeat(10), "bytes 0-99/100"],
          ["bytes=10-14", "01234", "bytes 10-14/100"],
          ["bytes=-3", "789", "bytes 97-99/100"],
          ["bytes=95-1000", "56789", "bytes 95-99/100"],
        ]
      ) {
        const res = await fetch(url(FILE), { headers: { range } });
        assert.equal(res.status, 206, range);
        assert.equal(await res.text(), text, range);
        assert.equal(res.headers.get("content-range"), cr);
      }
    });
    await t.step("multi-range and malformed Range: full 200", async () => {
      for (const range of ["bytes=0-1,4-5", "bytes=9-1", "lines=1-2"]) {
        const res = await fetch(url(FILE), { headers: { range } });
        assert.equal(res.status, 200, range);
        assert.equal((await res.arrayBuffer()).byteLength, 100);
      }
    });
    await t.step("416 with Content-Range: bytes */size", async () => {
      const res = await fetch(url(FILE), { headers: { range: "bytes=100-" } });
      assert.equal(res.status, 416);
      assert.equal(res.headers.get("content-range"), "bytes */100");
      assert.equal(await errorOf(res), "range_not_satisfiable");
    });
    const etag = (await fetch(url(FILE), { method: "HEAD" })).headers.get("etag")!;
    const lastModified = (await fetch(url(FILE), { method: "HEAD" })).headers.get("last-modified")!;
    await t.step("If-Range: a strong match keeps the range, anything else serves 200", async () => {
      const ranged = await fetch(url(FILE), { headers: { range: "bytes=0-1", "if-range": etag } });
      assert.equal(ranged.status, 206);
      await ranged.body?.cancel();
      const byDate = await fetch(url(FILE), {
        headers: { range: "bytes=0-1", "if-range": lastModified },
      });
      assert.equal(byDate.status, 206);
      await byDate.body?.cancel();
      for (const ifRange of ['"stale"', `W/${etag}`, "Thu, 01 Jan 1970 00:00:00 GMT"]) {
        const res = await fetch(url(FILE), {
          headers: { range: "bytes=0-1", "if-range": ifRange },
        });
        assert.equal(res.status, 200, ifRange);
        await res.body?.cancel();
      }
    });
    await t.step(
      "304 without a body; 412 with one (If-Match is ours, s3rver ignores it)",
      async () => {
        const notModified = await fetch(url(FILE), { headers: { "if-none-match": etag } });
        assert.equal(notModified.status, 304);
        assert.equal(await notModified.text(), "");
        assert.equal(notModified.headers.get("etag"), etag);
        const ims = await fetch(url(FILE), { headers: { "if-modified-since": lastModified } });
        assert.equal(ims.status, 304);
        await ims.body?.cancel();
        const failed = await fetch(url(FILE), { headers: { "if-match": '"other"' } });
        assert.equal(failed.status, 412);
        assert.equal(await errorOf(failed), "precondition_failed");
        const ius = await fetch(url(FILE), {
          headers: { "if-unmodified-since": "Thu, 01 Jan 1970 00:00:00 GMT" },
        });
        assert.equal(ius.status, 412);
        await ius.body?.cancel();
      },
    );
    await t.step("400 for malformed conditional headers", async () => {
      for (
        const name of ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"]
      ) {
        const res = await fetch(url(FILE), { headers: { [name]: "garbage" } });
        assert.equal(res.status, 400, name);
        assert.equal(await errorOf(res), "invalid_input");
      }
    });
    await t.step("404 not_found for a missing object", async () => {
      const res = await fetch(url("/images/none"));
      assert.equal(res.status, 404);
      assert.equal(await errorOf(res), "not_found");
    });
    await t.step("405 with Allow for other methods, lower-case ones too", async () => {
      for (const method of ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"]) {
        const res = await fetch(url(FILE), { method });
        assert.equal(res.status, 405, method);
        assert.equal(res.headers.get("allow"), "GET, HEAD");
        assert.equal(await errorOf(res), "method_not_allowed");
      }
      for (const method of ["get", "BREW", "gEt"]) {
        const raw = await rawRequest(
          port,
          `${method} ${FILE} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        assert.match(raw, /^HTTP\/1\.1 405 /, method);
        assert.match(raw, /allow: GET, HEAD/i);
      }
    });
    await t.step("the traversal corpus gets 400 and never reaches storage", async () => {
      const before = faults.requests.length;
      for (const path of TRAVERSAL_CORPUS) {
        const raw = await rawRequest(
          port,
          `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        const status = raw.slice(9, 12);
        assert.ok(status === "400", `${JSON.stringify(path)} answered ${status || "nothing"}`);
      }
      assert.deepEqual(faults.requests.slice(before).filter((l) => !l.includes("index.json")), []);
    });
    await t.step("X-Request-ID is echoed when valid and generated otherwise", async () => {
      const kept = await fetch(url("/images/none"), { headers: { "x-request-id": "abc.DEF_1-2" } });
      assert.equal(kept.headers.get("x-request-id"), "abc.DEF_1-2");
      assert.equal((await kept.json()).request_id, "abc.DEF_1-2");
      const replaced = await fetch(url("/healthz"), {
        headers: { "x-request-id": "x".repeat(129) },
      });
      assert.match(replaced.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
      await replaced.body?.cancel();
    });
  } finally {
    assert.equal(await proxy.stop(), 0);
    await faults.close();
    await store.close();
  }
  const records = proxy.records();
  const text = JSON.stringify(records);
  assert.ok(!text.includes("file.bin") && !text.includes("images/"), "no object key is logged");
  for (const r of records) {
    assert.equal(r["service.name"], "image-proxy");
    assert.equal(typeof r["service.version"], "string");
    assert.equal(typeof r.component, "string");
  }
});
