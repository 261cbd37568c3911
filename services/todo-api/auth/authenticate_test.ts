import assert from "node:assert/strict";
import { HttpError } from "@svc/shared/problem";
import { keyDigest, type Principal } from "./api_keys.ts";
import { createAuthenticator, presentedKey } from "./authenticate.ts";

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
  const known = new Map<string, Principal>([[await keyDigest("k"), {
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
