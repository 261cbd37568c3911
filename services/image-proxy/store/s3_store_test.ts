/**
 * The S3 store against a local HTTP server standing in for storage: what storage answers never
 * makes the proxy connect anywhere else, and the key `objectKeyOf` returns is the key storage
 * is asked for, byte for byte, under the bucket (no URL normalisation on the way).
 */
import assert from "node:assert/strict";
import { objectKeyOf } from "../object/target.ts";
import { createS3Store, type S3Store } from "./s3_store.ts";
import { StoreError } from "./errors.ts";

interface Listener {
  url: string;
  /** Request targets seen, e.g. `GET /bucket/p/a`. */
  seen: string[];
  close(): Promise<void>;
}

function listen(answer: (req: Request) => Response): Listener {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    seen.push(`${req.method} ${url.pathname}${url.search}`);
    return answer(req);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    close: () => server.shutdown(),
  };
}

function storeAt(endpoint: string): S3Store {
  return createS3Store({
    bucket: "bucket",
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    timeoutMs: 5_000,
    maxAttempts: 1,
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret", sessionToken: "tok" },
  });
}

Deno.test("S3 store: a redirect from storage is never followed; it is a misconfiguration", async (t) => {
  const elsewhere = listen(() => new Response("not an object"));
  let status = 307;
  const storage = listen(() =>
    new Response(null, { status, headers: { location: `${elsewhere.url}/steal` } })
  );
  const store = storeAt(storage.url);
  try {
    for (const code of [301, 302, 303, 307, 308]) {
      await t.step(`${code} with Location`, async () => {
        status = code;
        for (const read of [() => store.get("p/a"), () => store.head("p/a")]) {
          const err = await read().then(() => undefined, (e) => e);
          assert.ok(err instanceof StoreError, `${code}: ${err}`);
          assert.equal(err.code, "misconfigured");
        }
        assert.deepEqual(elsewhere.seen, [], "nothing reached the Location host");
      });
    }
    assert.equal(storage.seen.length, 10, "one request per read, to storage only");
  } finally {
    store.destroy();
    await storage.close();
    await elsewhere.close();
  }
});

Deno.test("S3 store: the object key reaches storage unchanged under the bucket", async (t) => {
  const storage = listen(() => new Response("x", { headers: { etag: '"e"' } }));
  const store = storeAt(storage.url);
  // Raw request paths that objectKeyOf accepts but that a URL parser would rewrite if the key
  // went into the request URL unescaped: double-encoded dots and separators, dot runs, `?`, `#`.
  const cases = [
    "/a/%252e%252e/b",
    "/%252e%252e/x",
    "/a%252Fb",
    "/a%255Cb",
    "/...",
    "/a..b/.c/d.",
    "/a%3Fb=1",
    "/a%23frag",
    "/a%25",
    "/images/20250816_23%3A08/rootfs.tar.xz",
  ];
  try {
    for (const raw of cases) {
      await t.step(raw, async () => {
        const key = objectKeyOf(raw, "p/");
        await (await store.get(key)).body.cancel();
        const target = storage.seen.at(-1)!;
        assert.ok(target.startsWith("GET /bucket/p/"), target);
        assert.ok(target.endsWith("?x-id=GetObject"), target);
        const path = target.slice("GET ".length, -"?x-id=GetObject".length);
        assert.ok(!path.includes("?") && !path.includes("#"), target);
        assert.equal(
          decodeURIComponent(path),
          `/bucket/${key}`,
          "storage is asked for exactly the key",
        );
      });
    }
  } finally {
    store.destroy();
    await storage.close();
  }
});
