import assert from "node:assert/strict";
import { HttpError } from "@svc/shared/problem";
import { keyDigest, type Principal } from "./api_keys.ts";
import { createAuthenticator, presentedKey } from "./authenticate.ts";
import { createKeyChanges } from "./key_changes.ts";

const req = (headers: Record<string, string>) => new Request("http://x/v1/todos", { headers });

Deno.test("presentedKey reads X-API-Key or Bearer, and refuses conflicts and other schemes", () => {
  assert.equal(presentedKey(req({ "x-api-key": "k1" })), "k1");
  assert.equal(presentedKey(req({ authorization: "Bearer k2" })), "k2");
  assert.equal(presentedKey(req({ authorization: "bearer k2", "x-api-key": "k2" })), "k2");
  assert.equal(presentedKey(req({})), undefined);
  assert.throws(() => presentedKey(req({ authorization: "Basic abc" })), HttpError);
  assert.throws(
    () => presentedKey(req({ authorization: "Bearer a", "x-api-key": "b" })),
    HttpError,
  );
});

Deno.test("lookups are cached for the TTL, so a revocation applies after it", async () => {
  let now = 0;
  let calls = 0;
  const known = new Map<string, Principal>([[keyDigest("k"), {
    subject: "a",
    roles: ["user"],
  }]]);
  const authenticate = createAuthenticator({
    findByDigest: (d) => {
      calls++;
      return Promise.resolve(known.get(d));
    },
    cacheTtlMs: 1000,
    now: () => now,
  });
  assert.equal((await authenticate(req({ "x-api-key": "k" }))).subject, "a");
  known.clear();
  now = 999;
  assert.equal((await authenticate(req({ "x-api-key": "k" }))).subject, "a");
  assert.equal(calls, 1);
  now = 1000;
  await assert.rejects(authenticate(req({ "x-api-key": "k" })), (e: HttpError) => e.status === 401);
  assert.equal(calls, 2);
});

Deno.test("a flood of unknown keys never evicts the cached real keys", async () => {
  let calls = 0;
  const principals = new Map<string, Principal>();
  for (let i = 0; i < 3; i++) {
    principals.set(keyDigest(`real${i}`), { subject: `s${i}`, roles: ["user"] });
  }
  const authenticate = createAuthenticator({
    findByDigest: (d) => {
      calls++;
      return Promise.resolve(principals.get(d));
    },
    cacheTtlMs: 60_000,
    cacheSize: 4,
    now: () => 0,
  });
  for (let i = 0; i < 3; i++) await authenticate(req({ "x-api-key": `real${i}` }));
  assert.equal(calls, 3);
  for (let i = 0; i < 100; i++) {
    await assert.rejects(authenticate(req({ "x-api-key": `random${i}` })), HttpError);
  }
  assert.equal(calls, 103);
  for (let i = 0; i < 3; i++) {
    assert.equal((await authenticate(req({ "x-api-key": `real${i}` }))).subject, `s${i}`);
  }
  assert.equal(calls, 103, "the real keys were still cached");
  // Unknown digests are cached too (at most cacheSize of them): the newest repeats hit the cache.
  await assert.rejects(authenticate(req({ "x-api-key": "random99" })), HttpError);
  assert.equal(calls, 103);
  await assert.rejects(authenticate(req({ "x-api-key": "random0" })), HttpError);
  assert.equal(calls, 104, "the oldest unknown digest was evicted");
});

Deno.test("known keys are evicted least recently used first when more than cacheSize exist", async () => {
  let calls = 0;
  const authenticate = createAuthenticator({
    findByDigest: () => {
      calls++;
      return Promise.resolve({ subject: "x", roles: ["user"] });
    },
    cacheTtlMs: 60_000,
    cacheSize: 2,
    now: () => 0,
  });
  await authenticate(req({ "x-api-key": "a" }));
  await authenticate(req({ "x-api-key": "b" }));
  await authenticate(req({ "x-api-key": "a" })); // a is now the most recent
  await authenticate(req({ "x-api-key": "c" })); // evicts b
  assert.equal(calls, 3);
  await authenticate(req({ "x-api-key": "a" }));
  assert.equal(calls, 3);
  await authenticate(req({ "x-api-key": "b" }));
  assert.equal(calls, 4);
});

Deno.test("one rule for both headers: an empty one counts as absent", () => {
  assert.equal(presentedKey(req({ "x-api-key": "", authorization: "Bearer k" })), "k");
  assert.equal(presentedKey(req({ "x-api-key": "k", authorization: "" })), "k");
  assert.equal(presentedKey(req({ "x-api-key": "  ", authorization: "Bearer k" })), "k");
  assert.equal(presentedKey(req({ "x-api-key": "k", authorization: "  " })), "k");
  assert.equal(presentedKey(req({ "x-api-key": "", authorization: "" })), undefined);
  // present but invalid (not empty) is still 401, on either side
  assert.throws(() => presentedKey(req({ "x-api-key": "k", authorization: "Bearer" })), HttpError);
  assert.throws(() => presentedKey(req({ "x-api-key": "k", authorization: "Token k" })), HttpError);
});

Deno.test("a moved key-change generation drops the cache at once; expiry is judged per request", async () => {
  let now = 0;
  let calls = 0;
  const known = new Map<string, Principal>([
    [keyDigest("k"), { subject: "a", roles: ["user"] }],
    [keyDigest("e"), { subject: "e", roles: ["user"], expiresAtMs: 100 }],
  ]);
  const changes = createKeyChanges();
  const authenticate = createAuthenticator({
    findByDigest: (d) => {
      calls++;
      return Promise.resolve(known.get(d));
    },
    cacheTtlMs: 60_000,
    now: () => now,
    changes,
  });
  assert.equal((await authenticate(req({ "x-api-key": "k" }))).subject, "a");
  known.delete(keyDigest("k"));
  assert.equal((await authenticate(req({ "x-api-key": "k" }))).subject, "a", "cached");
  changes.bump();
  await assert.rejects(authenticate(req({ "x-api-key": "k" })), HttpError);
  assert.equal(calls, 2);
  now = 99;
  assert.equal((await authenticate(req({ "x-api-key": "e" }))).subject, "e");
  now = 100;
  await assert.rejects(authenticate(req({ "x-api-key": "e" })), HttpError);
  now = 101;
  await assert.rejects(authenticate(req({ "x-api-key": "e" })), HttpError);
  assert.equal(calls, 3, "the expiry is checked on the cached entry");
});

Deno.test("a cached key is found by the key itself: same key any header, other keys by digest", async () => {
  let now = 0;
  const lookups: string[] = [];
  const known = new Map<string, Principal>([
    [keyDigest("k1"), { subject: "one", roles: ["user"] }],
    [keyDigest("k2"), { subject: "two", roles: ["admin"], expiresAtMs: 50 }],
  ]);
  const authenticate = createAuthenticator({
    findByDigest: (d) => {
      lookups.push(d);
      return Promise.resolve(known.get(d));
    },
    cacheTtlMs: 1000,
    now: () => now,
  });
  assert.equal((await authenticate(req({ "x-api-key": "k1" }))).subject, "one");
  assert.equal((await authenticate(req({ authorization: "Bearer k1" }))).subject, "one");
  assert.equal((await authenticate(req({ "x-api-key": " k1 " }))).subject, "one");
  assert.deepEqual(lookups, [keyDigest("k1")], "one lookup, by digest, for every form of k1");
  assert.equal((await authenticate(req({ "x-api-key": "k2" }))).subject, "two");
  await assert.rejects(authenticate(req({ "x-api-key": "k1x" })), HttpError);
  await assert.rejects(authenticate(req({ "x-api-key": "k1x" })), HttpError);
  assert.deepEqual(lookups, [keyDigest("k1"), keyDigest("k2"), keyDigest("k1x")]);
  now = 49;
  assert.equal((await authenticate(req({ "x-api-key": "k2" }))).subject, "two");
  now = 50; // expired while cached: refused without a lookup
  await assert.rejects(authenticate(req({ "x-api-key": "k2" })), HttpError);
  now = 999; // k1's entry at the last moment of its TTL, then past it: looked up again
  assert.equal((await authenticate(req({ "x-api-key": "k1" }))).subject, "one");
  assert.equal(lookups.length, 3);
  now = 1000;
  assert.equal((await authenticate(req({ "x-api-key": "k1" }))).subject, "one");
  assert.equal(lookups.length, 4);
});

Deno.test("resolve answers a cached verdict synchronously and waits only for a first lookup", async () => {
  let now = 0;
  const known = new Map<string, Principal>([[keyDigest("k"), { subject: "a", roles: ["user"] }]]);
  const authenticate = createAuthenticator({
    findByDigest: (d) => Promise.resolve(known.get(d)),
    cacheTtlMs: 1000,
    now: () => now,
  });
  const first = authenticate.resolve(req({ "x-api-key": "k" }));
  assert.ok(first instanceof Promise, "the first lookup of a key waits for the database");
  assert.equal((await first).subject, "a");
  const cached = authenticate.resolve(req({ "x-api-key": "k" }));
  assert.ok(!(cached instanceof Promise), "a cached key is answered at once");
  assert.equal(cached.subject, "a");
  // An unknown key: its first lookup rejects, its cached verdict throws at once, both 401.
  await assert.rejects(
    Promise.resolve(authenticate.resolve(req({ "x-api-key": "nope" }))),
    (e: HttpError) => e.status === 401 && e.message === "unknown API key",
  );
  assert.throws(
    () => authenticate.resolve(req({ "x-api-key": "nope" })),
    (e: HttpError) => e.status === 401 && e.message === "unknown API key",
  );
  assert.throws(
    () => authenticate.resolve(req({})),
    (e: HttpError) => e.status === 401 && e.message === "missing API key",
  );
  // The promise form keeps rejecting, never throwing.
  await assert.rejects(authenticate(req({})), (e: HttpError) => e.status === 401);
  now = 1000; // past the TTL: a lookup again
  assert.ok(authenticate.resolve(req({ "x-api-key": "k" })) instanceof Promise);
});
