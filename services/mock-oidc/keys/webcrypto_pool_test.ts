import assert from "node:assert/strict";
import { algorithmSpec } from "./algorithms.ts";
import { generatePrivateJwk } from "./key_material.ts";
import { createWebCryptoPool, defaultPoolSize } from "./webcrypto_pool.ts";

const RS256 = algorithmSpec("RS256");
const data = new TextEncoder().encode("header.payload");

async function rsaKey() {
  const jwk = await generatePrivateJwk("RS256");
  const privateKey = await crypto.subtle.importKey("jwk", jwk, RS256.webcrypto, true, ["sign"]);
  const pub = { kty: jwk.kty, n: jwk.n, e: jwk.e };
  const publicKey = await crypto.subtle.importKey("jwk", pub, RS256.webcrypto, true, ["verify"]);
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", privateKey));
  return { pkcs8, publicKey };
}

/** A stand-in worker (data: URL) that answers every request with its own random id. */
function idWorker(crashOn?: string): URL {
  const source = `
    const me = crypto.getRandomValues(new Uint8Array(8));
    self.onmessage = ({ data }) => {
      if (data.op === "key") return;
      if (${JSON.stringify(crashOn ?? null)} === data.op) throw new Error("worker crashed");
      // real clock: a worker that signs slowly, so requests queue in the pool
      setTimeout(() => self.postMessage({ id: data.id, signature: me.slice().buffer }), 20);
    };`;
  return new URL(`data:application/javascript,${encodeURIComponent(source)}`);
}

const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("the pool defaults to one worker per core", () => {
  assert.equal(defaultPoolSize(), Math.max(1, navigator.hardwareConcurrency));
});

Deno.test("signatures from the pool verify, for keys bound before and after it started", async () => {
  const pool = createWebCryptoPool({ size: 2 });
  try {
    const first = await rsaKey();
    const signFirst = pool.bind(first.pkcs8, RS256);
    await pool.ready();
    const second = await rsaKey();
    const signSecond = pool.bind(second.pkcs8, RS256);
    const signatures = await Promise.all([signFirst(data), signSecond(data), signFirst(data)]);
    const keys = [first, second, first];
    for (const [i, signature] of signatures.entries()) {
      const ok = await crypto.subtle.verify(
        RS256.signParams,
        keys[i].publicKey,
        signature as BufferSource,
        data,
      );
      assert.ok(ok, `signature ${i}`);
    }
  } finally {
    await pool.close();
  }
});

Deno.test("concurrent requests are spread over every worker of the pool", async () => {
  for (const size of [1, 3]) {
    const pool = createWebCryptoPool({ size, workerUrl: idWorker() });
    try {
      const sign = pool.bind(new Uint8Array(8), RS256);
      const ids = await Promise.all(Array.from({ length: size * 3 }, () => sign(data)));
      assert.equal(new Set(ids.map(hex)).size, size, `size ${size}`);
    } finally {
      await pool.close();
    }
  }
});

Deno.test("one worker starts; another only when every started one is busy", async () => {
  const pool = createWebCryptoPool({ size: 3, workerUrl: idWorker() });
  try {
    await pool.ready();
    const sign = pool.bind(new Uint8Array(8), RS256);
    // One at a time: the first worker answers every request, no other thread starts.
    const one = new Set<string>();
    for (let i = 0; i < 4; i++) one.add(hex(await sign(data)));
    assert.equal(one.size, 1);
    // Two in flight: a second worker starts; never more than the pool size.
    const two = await Promise.all([sign(data), sign(data)]);
    assert.equal(new Set([...one, ...two.map(hex)]).size, 2);
    const many = await Promise.all(Array.from({ length: 9 }, () => sign(data)));
    assert.equal(new Set([...one, ...many.map(hex)]).size, 3);
  } finally {
    await pool.close();
  }
});

Deno.test("a worker that cannot start fails ready() and every sign with the reason", async () => {
  const pool = createWebCryptoPool({
    size: 2,
    workerUrl: new URL("./no_such_worker.ts", import.meta.url),
  });
  try {
    await assert.rejects(pool.ready(), /^Error: Cannot sign: a signing worker failed: /);
    const sign = pool.bind(new Uint8Array(8), RS256);
    await assert.rejects(sign(data), /^Error: Cannot sign: every signing worker failed: /);
  } finally {
    await pool.close();
  }
});

Deno.test("a worker that crashes after it ran fails its request and is replaced", async () => {
  const pool = createWebCryptoPool({ size: 1, workerUrl: idWorker("sign") });
  try {
    await pool.ready();
    const sign = pool.bind(new Uint8Array(8), RS256);
    await assert.rejects(sign(data), /^Error: Cannot sign: a signing worker failed: .*crashed/);
    await pool.ready(); // the replacement answers
    await assert.rejects(sign(data), /crashed/); // and is a new worker, not the terminated one
  } finally {
    await pool.close();
  }
});

Deno.test("close() fails requests in flight and refuses new ones", async () => {
  const pool = createWebCryptoPool({ size: 1, workerUrl: idWorker() });
  const sign = pool.bind(new Uint8Array(8), RS256);
  const inFlight = sign(data);
  await pool.close();
  await assert.rejects(inFlight, /^Error: Cannot sign: the signer is closed$/);
  await assert.rejects(sign(data), /^Error: Cannot sign: the signer is closed$/);
  assert.throws(
    () => pool.bind(new Uint8Array(8), RS256),
    /^Error: Cannot bind a key: the signer is closed$/,
  );
  await assert.rejects(pool.ready(), /^Error: Cannot start the signer: it is closed$/);
});
