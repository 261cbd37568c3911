/**
 * What the contract tells a newcomer about the device flow and the mint `audience`, held to the
 * behaviour (through the library API, in-process).
 */
import assert from "node:assert/strict";
import { MockOidc, type MockOidcError } from "./library.ts";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

async function post(url: string, form: Record<string, string>) {
  const res = await fetch(url, { method: "POST", body: new URLSearchParams(form) });
  return { status: res.status, body: await res.json() };
}

Deno.test("device flow: the first poll gets the tokens without interactive login", async () => {
  await using oidc = await MockOidc.start();
  const start = await post(`${oidc.issuerUrl()}/device_authorization`, { "client_id": "app" });
  assert.equal(start.body.interval, 1);
  const poll = await post(`${oidc.issuerUrl()}/token`, {
    "grant_type": DEVICE_GRANT,
    "client_id": "app",
    "device_code": start.body.device_code,
  });
  assert.equal(poll.status, 200);
  assert.equal(typeof poll.body.access_token, "string");
});

Deno.test("device flow: with interactive login, pending until the code is entered", async () => {
  await using oidc = await MockOidc.start({ config: { interactiveLogin: true } });
  const start = await post(`${oidc.issuerUrl()}/device_authorization`, { "client_id": "app" });
  const form = {
    "grant_type": DEVICE_GRANT,
    "client_id": "app",
    "device_code": start.body.device_code,
  };
  const pending = await post(`${oidc.issuerUrl()}/token`, form);
  assert.deepEqual([pending.status, pending.body], [400, {
    error: "authorization_pending",
    error_description: "the user has not yet approved",
  }]);
  // a second poll at once is still pending, never slow_down
  assert.equal((await post(`${oidc.issuerUrl()}/token`, form)).body.error, "authorization_pending");
  const page = await fetch(`${oidc.issuerUrl()}/device`, {
    method: "POST",
    body: new URLSearchParams({ "user_code": start.body.user_code, username: "dora" }),
  });
  assert.equal(page.status, 200);
  await page.body?.cancel();
  const done = await post(`${oidc.issuerUrl()}/token`, form);
  assert.equal(done.status, 200);
  // expired after expires_in (600 s) on the process clock
  const late = await post(`${oidc.issuerUrl()}/device_authorization`, { "client_id": "app" });
  await oidc.advanceClock("601s");
  const expired = await post(`${oidc.issuerUrl()}/token`, {
    ...form,
    "device_code": late.body.device_code,
  });
  assert.deepEqual([expired.status, expired.body.error], [400, "expired_token"]);
});

Deno.test("mint: audience is a list; one entry is a string claim, several an array", async () => {
  await using oidc = await MockOidc.start();
  const aud = async (audience: string[] | null | undefined) =>
    (await oidc.mint({ issuer: "default", audience })).claims.aud;
  assert.equal(await aud(undefined), undefined);
  assert.equal(await aud(null), undefined);
  assert.equal(await aud(["api"]), "api");
  assert.deepEqual(await aud(["api", "other"]), ["api", "other"]);
  await assert.rejects(
    // deno-lint-ignore no-explicit-any
    oidc.mint({ issuer: "default", audience: "api" as any }),
    (e: MockOidcError) => {
      assert.equal(e.status, 422);
      const errors = (e.body as { errors: { location: string; message: string }[] }).errors;
      assert.deepEqual(errors.map((x) => x.message), ["expected array, got string"]);
      return true;
    },
  );
});
