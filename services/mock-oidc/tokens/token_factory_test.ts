import assert from "node:assert/strict";
import { createClock } from "../clock.ts";
import bundled from "../keys/bundled_keys.json" with { type: "json" };
import { createKeyStore } from "../keys/key_store.ts";
import { createKeyRing } from "../keys/key_ring.ts";
import { resolveCallback } from "./callback.ts";
import { createTokenFactory } from "./token_factory.ts";

function factory() {
  const store = createKeyStore({
    initialKeys: bundled.keys.map((jwk) => ({ jwk, alg: "RS256" as const })),
    spareKeys: 0,
  });
  const clock = createClock({ frozenAt: Date.parse("2030-01-01T00:00:00Z") });
  const keys = createKeyRing(store, { clock });
  return createTokenFactory({ keys, clock, uuid: () => "fixed-jti" });
}

const base = { issuerId: "i", issuerUrl: "http://h/i", clientId: "c" } as const;

Deno.test("issue stamps base claims from the clock and no aud when audience is absent", async () => {
  const issued = await factory().issue({ ...base, kind: "access_token", subject: "s" });
  assert.deepEqual(issued.claims, {
    sub: "s",
    nbf: 1893456000,
    iss: "http://h/i",
    exp: 1893459600,
    iat: 1893456000,
    jti: "fixed-jti",
  });
  assert.equal(issued.kid, "i");
  assert.equal(issued.algorithm, "RS256");
  assert.equal(issued.expiresAt.toISOString(), "2030-01-01T01:00:00.000Z");
});

Deno.test("callback precedence: defaults < callback claims < mapping < explicit claims", async () => {
  const issued = await factory().issue({
    ...base,
    kind: "access_token",
    subject: "orig",
    audience: ["default"],
    defaultClaims: { tid: "i", a: 0, b: 0, c: 0 },
    claims: { c: 3 },
    callback: {
      issuer: "i",
      subject: "cb-sub",
      audience: [],
      claims: { a: 1, b: 1 },
      expirySeconds: 60,
      typ: "JWT",
      requestMappings: [{
        param: "grant_type",
        match: "client_credentials",
        typeHeader: "at+jwt",
        claims: { b: 2, c: 2, who: "${clientId}" },
      }],
    },
    params: new URLSearchParams("grant_type=client_credentials"),
  });
  const { claims } = issued;
  assert.equal(claims.sub, "cb-sub");
  assert.deepEqual(claims.aud, []);
  assert.deepEqual([claims.tid, claims.a, claims.b, claims.c, claims.who], ["i", 1, 2, 3, "c"]);
  assert.equal(Number(claims.exp) - Number(claims.iat), 60);
  assert.equal(claims.client_id, "c"); // at+jwt gets RFC 9068 client_id
  const header = JSON.parse(atob(issued.token.split(".")[0]));
  assert.equal(header.typ, "at+jwt");
});

Deno.test("mapping aud moves the access token audience but never the id_token's", async () => {
  const callback = {
    issuer: "i",
    requestMappings: [{ param: "x", match: "*", claims: { aud: ["api1", "api2"], sub: "m" } }],
  };
  const params = new URLSearchParams("x=1");
  const f = factory();
  const access = await f.issue({
    ...base,
    kind: "access_token",
    callback,
    params,
    audience: ["d"],
  });
  assert.deepEqual(access.claims.aud, ["api1", "api2"]);
  assert.equal(access.claims.sub, "m");
  const id = await f.issue({ ...base, kind: "id_token", callback, params, audience: ["c"] });
  assert.equal(id.claims.aud, "c");
});

Deno.test("callback resolution: scenario queue first, then first configured, then none", () => {
  const configured = [{ issuer: "a", claims: { n: 1 } }, { issuer: "a", claims: { n: 2 } }];
  const queued = { issuer: "a", claims: { n: 0 } };
  let queue = [queued];
  const callbacks = { take: (id: string) => queue[0]?.issuer === id ? queue.shift() : undefined };
  assert.equal(resolveCallback("a", { callbacks, configured }), queued);
  assert.equal(resolveCallback("a", { callbacks, configured }), configured[0]);
  assert.equal(resolveCallback("b", { callbacks, configured }), undefined);
  queue = [];
});
