import assert from "node:assert/strict";
import { createClock } from "../clock.ts";
import bundled from "./bundled_keys.json" with { type: "json" };
import { createKeyStore } from "./key_store.ts";
import { createKeyRing, KeyRingError, MAX_KEYS_PER_ISSUER } from "./key_ring.ts";
import type { Algorithm } from "./algorithms.ts";
import { generatePrivateJwk } from "./key_material.ts";

function ring() {
  const clock = createClock({ frozenAt: Date.parse("2030-01-01T00:00:00Z") });
  const store = createKeyStore({
    initialKeys: bundled.keys.map((jwk) => ({ jwk, alg: "RS256" as const })),
    spareKeys: 0,
  });
  // One pre-made key per algorithm: tests need not wait for RSA generation.
  const made = new Map<Algorithm, Promise<JsonWebKey>>();
  const generate = (alg: Algorithm) => {
    if (!made.has(alg)) made.set(alg, generatePrivateJwk(alg));
    return made.get(alg)!;
  };
  return { clock, keys: createKeyRing(store, { clock, generate }) };
}

const kids = async (keys: ReturnType<typeof ring>["keys"], issuer = "a") =>
  JSON.parse(await keys.jwksJson(issuer)).keys.map((k: { kid: string }) => k.kid);

Deno.test("an issuer never rotated keeps its one key, kid = issuer id", async () => {
  const { keys } = ring();
  assert.deepEqual(await kids(keys), ["a"]);
  assert.equal((await keys.issuerKey("a")).kid, "a");
  assert.equal((await keys.verificationKey("a", "a"))?.kid, "a");
  assert.equal(await keys.verificationKey("a", "other"), undefined);
  assert.equal((await keys.verificationKey("a", undefined))?.kid, "a");
});

Deno.test("add, activate, retire: the JWKS and the signing key follow", async () => {
  const { keys } = ring();
  const added = await keys.addKey("a", { kid: "k2", alg: "ES256" });
  assert.equal(added.status, "published");
  assert.deepEqual(await kids(keys), ["a", "k2"]);
  assert.equal((await keys.issuerKey("a")).kid, "a", "adding does not activate");
  await keys.activateKey("a", "k2");
  assert.equal((await keys.issuerKey("a")).kid, "k2");
  assert.equal((await keys.issuerKey("a")).alg, "ES256");
  assert.equal((await keys.verificationKey("a", "a"))?.kid, "a", "the old key still verifies");
  const listed = await keys.listKeys("a");
  assert.deepEqual(listed.map((k) => [k.key.kid, k.status]), [["k2", "active"], [
    "a",
    "published",
  ]]);
  const active = await keys.addKey("a", { kid: "k3", activate: true });
  assert.equal(active.status, "active");
  assert.equal((await keys.issuerKey("a")).kid, "k3");
  // Another issuer is untouched.
  assert.deepEqual(await kids(keys, "b"), ["b"]);
});

Deno.test("a retired key verifies for its grace period, counted on the clock (at, below, above)", async () => {
  const { clock, keys } = ring();
  await keys.addKey("a", { kid: "k2", activate: true });
  const retired = await keys.retireKey("a", "a", 60);
  assert.equal(retired.status, "retired");
  assert.equal(retired.retiredUntil, clock.now() + 60_000);
  clock.advance(59_999);
  assert.ok((await kids(keys)).includes("a"), "1 ms before the end: still published");
  assert.ok(await keys.verificationKey("a", "a"));
  clock.advance(1);
  assert.deepEqual(await kids(keys), ["k2"], "at the end: gone");
  assert.equal(await keys.verificationKey("a", "a"), undefined);
  clock.advance(1);
  assert.deepEqual(await kids(keys), ["k2"], "after: gone");
  // A grace of 0 ends at once.
  await keys.addKey("a", { kid: "k3" });
  await keys.retireKey("a", "k3", 0);
  assert.deepEqual(await kids(keys), ["k2"]);
});

Deno.test("refusals: the active key, unknown and taken kids, a retired key, more than 10 keys", async () => {
  const { keys } = ring();
  const refused = async (p: Promise<unknown>, status: number, message: string) => {
    await assert.rejects(p, (err: unknown) => {
      assert.ok(err instanceof KeyRingError);
      assert.equal(err.status, status);
      assert.equal(err.message, message);
      return true;
    });
  };
  await refused(keys.retireKey("a", "a", 10), 409, "key a signs for a; activate another first");
  await refused(keys.activateKey("a", "nope"), 404, "issuer a has no key nope");
  await refused(keys.retireKey("a", "nope", 1), 404, "issuer a has no key nope");
  await refused(keys.addKey("a", { kid: "a" }), 409, "issuer a already has a key a");
  await keys.addKey("a", { kid: "r" });
  await keys.retireKey("a", "r", 100);
  await refused(keys.activateKey("a", "r"), 409, "key r is retired; add a new key instead");
  // 2 held; up to 10 (at), then the 11th is refused (above).
  for (let i = 3; i <= MAX_KEYS_PER_ISSUER; i++) await keys.addKey("a", { kid: `k${i}` });
  assert.equal((await keys.listKeys("a")).length, MAX_KEYS_PER_ISSUER);
  await refused(
    keys.addKey("a", { kid: "k11" }),
    409,
    "issuer a holds 10 keys; retire one and let its grace end",
  );
});
