import assert from "node:assert/strict";
import { calculateJwkThumbprint, decodeProtectedHeader, type JWK } from "jose";
import { localInfo } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { createMetrics } from "@svc/shared/metrics";
import { createApp, createAppState } from "../app.ts";
import { BASE, claimsOf, type Harness, harness } from "../protocol/_test_support.ts";
import { cookiePair, local } from "./_test_support.ts";
import { debuggerValuesOf, readDebuggerForm } from "./form.ts";
import { errorLine } from "./pages.ts";

/** The `User-Agent` the debugger's calls carry. */
const DEBUGGER_USER_AGENT = "mock-oidc-debugger";

/** Text of the element with `id` on a page (entities decoded as the tool pages escape). */
function byId(page: string, id: string): string | undefined {
  const m = new RegExp(`<(\\w+)[^>]* id="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(page);
  return m?.[2].replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
    .replace(/<[^>]+>/g, "");
}

/** Post the form, follow to authorize (auto-approved), then the callback: the result page. */
async function runFlow(
  h: Pick<Harness, "form" | "call">,
  fields: Record<string, string>,
): Promise<{ authorize: URL; cookie: string; status: number; page: string }> {
  const start = await h.form("/default/debugger", fields);
  assert.equal(start.status, 302, await start.clone().text());
  const authorize = new URL(start.headers.get("location")!);
  const cookie = cookiePair(start);
  const auth = await h.call(local(authorize.href));
  assert.equal(auth.status, 302, await auth.text());
  const res = await h.call(local(auth.headers.get("location")!), { headers: { cookie } });
  return { authorize, cookie, status: res.status, page: await res.text() };
}

const DPOP_PAR = { par: "on", dpop: "on", pkce: "on" };

Deno.test("the debugger pushes the request and binds the tokens with DPoP", async (t) => {
  await t.step(
    "an issuer demanding nonces: /par retried with one, tokens bound, userinfo",
    async () => {
      const h = harness({}, { dpopNonceIssuers: ["default"] });
      const { authorize, page, status } = await runFlow(h, DPOP_PAR);
      // RFC 9126 §4: authorize gets client_id and request_uri only.
      assert.deepEqual([...authorize.searchParams.keys()], ["client_id", "request_uri"]);
      assert.equal(authorize.searchParams.get("client_id"), "debugger");
      assert.match(
        authorize.searchParams.get("request_uri")!,
        /^urn:ietf:params:oauth:request_uri:/,
      );
      assert.equal(status, 200, page);
      assert.match(byId(page, "par-summary")!, /answered 400 use_dpop_nonce, then 201/);
      // The nonce learnt at /par is in the first token proof: no second token request.
      assert.equal(byId(page, "token-nonce-request"), undefined);
      const tokenRequest = byId(page, "token-request")!;
      const proof = /^DPoP: (\S+)$/m.exec(tokenRequest)![1];
      assert.equal(typeof claimsOf(proof).nonce, "string");
      assert.equal(claimsOf(proof).htu, `${BASE}/default/token`);
      assert.match(tokenRequest, /code_verifier=[\w-]{43}/);
      assert.match(tokenRequest, new RegExp(`^User-Agent: ${DEBUGGER_USER_AGENT}$`, "m"));
      // The proof's key is the page's public key, whose thumbprint the token is bound to.
      const jwk = decodeProtectedHeader(proof).jwk as JWK;
      assert.deepEqual(Object.keys(jwk).sort(), ["crv", "kty", "x", "y"]);
      const shownKey = JSON.parse(byId(page, "dpop-public-key")!);
      assert.deepEqual(shownKey, jwk);
      const jkt = await calculateJwkThumbprint(jwk);
      assert.equal(byId(page, "dpop-jkt"), jkt);
      assert.equal(byId(page, "dpop-cnf-jkt"), jkt);
      assert.equal(byId(page, "dpop-token-type"), "DPoP");
      assert.match(page, /id="dpop" data-bound="true"/);
      assert.equal(byId(page, "dpop-binding"), "bound to this key");
      // userinfo with the bound token: the DPoP scheme and a proof with ath.
      const userinfoRequest = byId(page, "userinfo-request")!;
      assert.match(userinfoRequest, /^GET \/default\/userinfo HTTP\/1.1$/m);
      assert.match(userinfoRequest, /^Authorization: DPoP ey/m);
      const userinfoProof = /^DPoP: (\S+)$/m.exec(userinfoRequest)![1];
      assert.match(String(claimsOf(userinfoProof).ath), /^[\w-]{43}$/);
      assert.equal(claimsOf(userinfoProof).htm, "GET");
      assert.match(byId(page, "userinfo-response")!, /^HTTP\/1.1 200/);
      assert.equal(byId(page, "userinfo-error"), undefined);
      // The private key shows nowhere.
      assert.doesNotMatch(page, /&#34;d&#34;/);
    },
  );

  await t.step(
    "a nonce challenge forced on the token endpoint: answered, retried, shown",
    async () => {
      const h = harness();
      h.core.protocol.state.dpopChallenges.add("default", "debugger");
      const { authorize, page, status } = await runFlow(h, { dpop: "on" });
      // Not pushed: the whole request goes to authorize.
      assert.equal(authorize.searchParams.get("response_type"), "code");
      assert.equal(status, 200, page);
      assert.equal(byId(page, "par-summary"), undefined);
      const offered = /DPoP-Nonce: ([\w-]+)/.exec(byId(page, "token-nonce-exchange")!)![1];
      assert.match(byId(page, "token-nonce-response")!, /^HTTP\/1.1 400/);
      assert.match(byId(page, "token-nonce-response")!, /use_dpop_nonce/);
      assert.equal(
        claimsOf(/^DPoP: (\S+)$/m.exec(byId(page, "token-nonce-request")!)![1]).nonce,
        undefined,
      );
      const retried = /^DPoP: (\S+)$/m.exec(byId(page, "token-request")!)![1];
      assert.equal(claimsOf(retried).nonce, offered);
      assert.match(byId(page, "token-response")!, /^HTTP\/1.1 200/);
      assert.match(page, /id="dpop" data-bound="true"/);
      assert.match(byId(page, "userinfo-response")!, /^HTTP\/1.1 200/);
      // The challenge was used up by the first proof.
      assert.deepEqual(h.core.protocol.state.dpopChallenges.list(), []);
    },
  );

  await t.step("without DPoP the page has no DPoP card and calls no userinfo", async () => {
    const h = harness();
    const { page, status } = await runFlow(h, { par: "on" });
    assert.equal(status, 200, page);
    assert.match(byId(page, "par-summary")!, /answered 201;/);
    assert.doesNotMatch(page, /id="dpop"|id="userinfo-request"|^DPoP:/m);
    assert.match(byId(page, "token-response")!, /"token_type":"Bearer"/);
  });
});

Deno.test("the debugger shows a refused /par or token request plainly", async (t) => {
  await t.step("a registered client with another secret: /par's 401 invalid_client", async () => {
    const h = harness();
    const reg = await h.call("/default/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [`${BASE}/default/debugger/callback`] }),
    });
    assert.equal(reg.status, 201);
    const { client_id: clientId } = await reg.json();
    const res = await h.form("/default/debugger", {
      ...DPOP_PAR,
      client_id: clientId,
      client_secret: "not-its-secret",
    });
    const page = await res.text();
    assert.equal(res.status, 401, page);
    assert.equal(res.headers.get("set-cookie"), null);
    assert.match(
      byId(page, "error-detail")!,
      /^The pushed authorization request endpoint answered 401 invalid_client: \S/,
    );
    assert.match(byId(page, "par-error")!, /^invalid_client: /);
    assert.match(byId(page, "par-request")!, /^POST \/default\/par HTTP\/1.1$/m);
    assert.match(byId(page, "par-response")!, /^HTTP\/1.1 401/);
  });

  await t.step(
    "a spent code: the token endpoint's invalid_grant, with its description",
    async () => {
      const h = harness();
      const start = await h.form("/default/debugger", DPOP_PAR);
      const cookie = cookiePair(start);
      const auth = await h.call(local(start.headers.get("location")!));
      const callback = local(auth.headers.get("location")!);
      assert.equal((await h.call(callback, { headers: { cookie } })).status, 200);
      const again = await h.call(callback, { headers: { cookie } });
      const page = await again.text();
      assert.equal(again.status, 400);
      assert.match(page, /token request failed/);
      assert.match(byId(page, "token-error")!, /^invalid_grant: \S/);
      assert.doesNotMatch(page, /id="userinfo-request"/);
      assert.match(page, /id="dpop" data-bound="false"/);
    },
  );
});

Deno.test("errorLine: error and description of a refused call, nothing for a success", () => {
  assert.equal(errorLine({ status: 200, body: { access_token: "x" } }), undefined);
  assert.equal(errorLine({ status: 201, body: { error: "odd" } }), undefined);
  assert.equal(errorLine({ status: 400, body: { error: "invalid_grant" } }), "invalid_grant");
  assert.equal(
    errorLine({ status: 401, body: { error: "invalid_client", error_description: "why" } }),
    "invalid_client: why",
  );
  assert.equal(errorLine({ status: 502, body: undefined }), "HTTP 502");
});

Deno.test("debuggerValuesOf ticks the boxes a query sets to on, and nothing else", () => {
  const values = debuggerValuesOf(
    new URLSearchParams("par=on&dpop=on&pkce=yes&client_id=evil&client_secret=x"),
  );
  assert.equal(values.par, "on");
  assert.equal(values.dpop, "on");
  assert.equal(values.pkce, "");
  assert.equal(values.client_id, "debugger");
  assert.equal(values.client_secret, "someSecret");
  const form = readDebuggerForm(new URLSearchParams({ par: "on", dpop: "on" }), {
    issuerId: "default",
    redirectUri: `${BASE}/default/debugger/callback`,
  });
  assert.ok(form.ok);
  assert.equal(form.par, true);
  assert.equal(form.dpop, true);
  const plain = readDebuggerForm(new URLSearchParams(), {
    issuerId: "default",
    redirectUri: `${BASE}/default/debugger/callback`,
  });
  assert.ok(plain.ok);
  assert.equal(plain.par, false);
  assert.equal(plain.dpop, false);
});

Deno.test("GET /{issuer}/debugger?par=on&dpop=on shows those boxes ticked", async () => {
  const h = harness();
  const ticked = await (await h.call("/default/debugger?par=on&dpop=on")).text();
  assert.match(ticked, /id="par" name="par" value="on"\s+checked/);
  assert.match(ticked, /id="dpop" name="dpop" value="on"\s+checked/);
  assert.doesNotMatch(ticked, /id="pkce" name="pkce" value="on"\s+checked/);
  const plain = await (await h.call("/default/debugger")).text();
  assert.doesNotMatch(plain, /value="on"\s+checked/);
});

Deno.test("the debugger's in-process calls are captured with their DPoP outcome", async () => {
  const state = createAppState(createMetrics({ service: "mock-oidc" }));
  const h = harness({}, { dpopNonceIssuers: ["default"] });
  const { api } = createApp({ core: h.core, state, logger: createLogger({ write: () => {} }) });
  const call = async (path: string, init: RequestInit = {}) =>
    await api(new Request(`${BASE}${path}`, init), localInfo());
  const form = (path: string, body: Record<string, string>) =>
    call(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    });
  const { page, status } = await runFlow({ call, form }, DPOP_PAR);
  assert.equal(status, 200, page);
  const jkt = byId(page, "dpop-jkt");
  const log = state.requests.list({});
  const ours = log.filter((e) => e.headers?.["user-agent"]?.[0] === DEBUGGER_USER_AGENT);
  assert.deepEqual(
    ours.map((e) => [e.method, e.path, e.dpop]),
    [
      ["POST", "/default/par", { jkt, verified: false, error: "use_dpop_nonce" }],
      ["POST", "/default/par", { jkt, verified: true }],
      ["POST", "/default/token", { jkt, verified: true }],
      ["GET", "/default/userinfo", { jkt, verified: true }],
    ],
  );
  // The browser's own requests are there too, without a DPoP outcome.
  const paths = log.map((e) => e.path);
  for (const path of ["/default/debugger", "/default/authorize", "/default/debugger/callback"]) {
    assert.ok(paths.includes(path), path);
  }
  assert.equal(log.find((e) => e.path === "/default/debugger/callback")?.dpop, undefined);
});
