import assert from "node:assert/strict";
import { claimsOf, harness } from "./_test_support.ts";

const GRANT = "urn:ietf:params:oauth:grant-type:device_code";

Deno.test("device flow without interactive login is approved at once", async () => {
  const h = harness();
  const start = await h.form("/default/device_authorization", {
    client_id: "tv",
    scope: "openid api",
  });
  assert.equal(start.status, 200);
  const device = await start.json();
  assert.match(device.user_code, /^[A-Z]{4}-[A-Z]{4}$/);
  assert.equal(device.verification_uri, "http://localhost:8080/default/device");
  const res = await h.form("/default/token", {
    grant_type: GRANT,
    device_code: device.device_code,
    client_id: "tv",
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(claimsOf(body.id_token).aud, "tv");
  assert.ok(body.refresh_token);
  const again = await h.form("/default/token", {
    grant_type: GRANT,
    device_code: device.device_code,
  });
  assert.equal((await again.json()).error, "invalid_grant");
});

Deno.test("interactive device flow is pending until the user approves on the page", async () => {
  const h = harness({ interactiveLogin: true });
  const device = await (await h.form("/default/device_authorization", { client_id: "tv" })).json();
  const poll = () =>
    h.form("/default/token", { grant_type: GRANT, device_code: device.device_code });
  const pending = await poll();
  assert.equal(pending.status, 400);
  assert.equal((await pending.json()).error, "authorization_pending");
  const page = await h.call(`/default/device?user_code=${device.user_code}`);
  assert.match(await page.text(), new RegExp(device.user_code));
  const wrong = await h.form("/default/device", { user_code: "BBBB-BBBB", username: "x" });
  assert.equal(wrong.status, 400);
  const approve = await h.form("/default/device", {
    user_code: device.user_code.toLowerCase().replace("-", ""),
    username: "dora",
    claims: '{"role":"admin"}',
  });
  assert.equal(approve.status, 200);
  const body = await (await poll()).json();
  const claims = claimsOf(body.access_token);
  assert.equal(claims.sub, "dora");
  assert.equal(claims.role, "admin");
});

Deno.test("device codes expire per the process clock", async () => {
  const h = harness({ interactiveLogin: true });
  const device = await (await h.form("/default/device_authorization", { client_id: "tv" })).json();
  h.core.clock.advance(device.expires_in * 1000);
  const res = await h.form("/default/token", {
    grant_type: GRANT,
    device_code: device.device_code,
  });
  assert.equal((await res.json()).error, "expired_token");
});

Deno.test("device authorization needs a client id", async () => {
  const h = harness();
  const res = await h.form("/default/device_authorization", { scope: "openid" });
  assert.equal(res.status, 401);
  assert.equal((await res.json()).error, "invalid_client");
});
