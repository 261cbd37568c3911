import assert from "node:assert/strict";
import { BASE, harness } from "../protocol/_test_support.ts";
import { local, startFlow } from "./_test_support.ts";

/** GET the callback; returns status, body and the error detail when there is one. */
async function callback(
  h: ReturnType<typeof harness>,
  path: string,
  cookie?: string,
): Promise<{ status: number; page: string; detail?: string }> {
  const res = await h.call(path, { headers: cookie ? { cookie } : {} });
  const page = await res.text();
  return { status: res.status, page, detail: /id="error-detail">([^<]*)/.exec(page)?.[1] };
}

Deno.test("the debugger callback answers every failure with a 4xx page", async (t) => {
  const h = harness();
  const flow = await startFlow(h);
  const path = local(flow.callback.href);

  await t.step("no cookie: 400 no session", async () => {
    const res = await callback(h, path);
    assert.equal(res.status, 400);
    assert.match(res.detail!, /sent no debugger-session cookie/);
  });
  await t.step("an altered, forged or oversized cookie: 400 invalid session", async () => {
    const value = flow.cookie.slice("debugger-session=".length);
    const altered = value.slice(0, -2) + (value.endsWith("A") ? "BB" : "AA");
    for (
      const bad of [
        altered,
        "forged",
        "eyJhbGciOiJkaXIiLCJlbmMiOiJBMTI4R0NNIn0..AAAA.AAAA.AAAA",
        value + "A".repeat(5000),
      ]
    ) {
      const res = await callback(h, path, `debugger-session=${bad}`);
      assert.equal(res.status, 400, bad.slice(0, 30));
      assert.match(res.detail!, /does not open here/);
    }
  });
  await t.step("a cookie sealed for another issuer does not open here", async () => {
    const other = await startFlow(h, {}, "other");
    const res = await callback(h, path, other.cookie);
    assert.equal(res.status, 400);
    assert.match(res.detail!, /does not open here/);
  });
  await t.step("error from authorize: 400 naming it, parameters shown escaped", async () => {
    const res = await callback(
      h,
      "/default/debugger/callback?error=access_denied&error_description=%3Cscript%3E",
      flow.cookie,
    );
    assert.equal(res.status, 400);
    assert.equal(res.detail, "The authorization endpoint answered access_denied.");
    assert.ok(res.page.includes("&#60;script&#62;") && !res.page.includes("<script>"));
  });
  await t.step("iss of another issuer (RFC 9207 mix-up): 400, even on an error", async () => {
    const code = flow.callback.searchParams.get("code")!;
    for (const query of [`code=${code}&state=1234`, "error=access_denied&state=1234"]) {
      const res = await callback(
        h,
        `/default/debugger/callback?${query}&iss=${encodeURIComponent(`${BASE}/other`)}`,
        flow.cookie,
      );
      assert.equal(res.status, 400);
      assert.equal(
        res.detail,
        `The callback names issuer ${BASE}/other (iss), not this issuer ${BASE}/default.`,
      );
    }
  });
  await t.step("no code: 400", async () => {
    const res = await callback(h, "/default/debugger/callback?state=1234", flow.cookie);
    assert.equal(res.status, 400);
    assert.match(res.detail!, /no code parameter/);
  });
  await t.step("state differs: 400, and the code is not redeemed", async () => {
    const code = flow.callback.searchParams.get("code")!;
    const res = await callback(h, `/default/debugger/callback?code=${code}&state=9`, flow.cookie);
    assert.equal(res.status, 400);
    assert.match(res.detail!, /state differs/);
  });
  await t.step("the real callback then succeeds once", async () => {
    assert.equal((await callback(h, path, flow.cookie)).status, 200);
  });
  await t.step("a spent code: the token endpoint's 400 invalid_grant, shown raw", async () => {
    const res = await callback(h, path, flow.cookie);
    assert.equal(res.status, 400);
    assert.match(res.page, /token request failed/);
    assert.match(res.page, /HTTP\/1.1 400/);
    assert.match(res.page, /invalid_grant/);
    assert.doesNotMatch(res.page, /data-verified/);
  });
  await t.step("an unknown code: 400 invalid_grant", async () => {
    const res = await callback(h, "/default/debugger/callback?code=x&state=1234", flow.cookie);
    assert.equal(res.status, 400);
    assert.match(res.page, /unknown or already-used authorization code/);
  });
  await t.step("a form_post callback without a form body: 400 no code", async () => {
    const res = await h.call("/default/debugger/callback", {
      method: "POST",
      headers: { cookie: flow.cookie, "content-type": "application/json" },
      body: '{"code":"x"}',
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /no code parameter/);
  });
});
