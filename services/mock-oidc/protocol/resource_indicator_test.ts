import assert from "node:assert/strict";
import { claimsOf, harness } from "./_test_support.ts";
import {
  isResourceUri,
  MAX_RESOURCE_LENGTH,
  MAX_RESOURCES,
  narrowResources,
  parseResources,
} from "./resource_indicator.ts";
import { OAuthError } from "./oauth_error.ts";

const REDIRECT = "http://rp.test/cb";
const API = "https://api.example/mcp";
const OTHER = "urn:example:other";

function params(...resources: string[]): URLSearchParams {
  return new URLSearchParams(resources.map((r) => ["resource", r]));
}

function isTarget(message: RegExp) {
  return (e: unknown) =>
    e instanceof OAuthError && e.code === "invalid_target" && e.status === 400 &&
    message.test(e.message);
}

Deno.test("resource values: absolute URIs without a fragment", async (t) => {
  await t.step("accepted", () => {
    for (const v of [API, "http://127.0.0.1:8090/mcp", OTHER, "https://a.example", "x:y"]) {
      assert.equal(isResourceUri(v), true, v);
    }
  });
  await t.step("refused", () => {
    for (
      const v of ["", "/mcp", "api.example/mcp", "//api.example", `${API}#`, `${API}#frag`, "1a:b"]
    ) {
      assert.equal(isResourceUri(v), false, v);
    }
  });
  await t.step("repeatable, deduplicated in order", () => {
    assert.deepEqual(parseResources(params(API, OTHER, API)), [API, OTHER]);
    assert.deepEqual(parseResources(new URLSearchParams()), []);
  });
  await t.step("a bad one among good ones is invalid_target naming it", () => {
    assert.throws(
      () => parseResources(params(API, "relative/path")),
      isTarget(/^resource must be an absolute URI without a fragment: relative\/path$/),
    );
  });
  await t.step("length at, below and above the bound", () => {
    const at = "https://a.example/" + "x".repeat(MAX_RESOURCE_LENGTH - 18);
    assert.equal(at.length, MAX_RESOURCE_LENGTH);
    assert.deepEqual(parseResources(params(at.slice(0, -1))), [at.slice(0, -1)]);
    assert.deepEqual(parseResources(params(at)), [at]);
    assert.throws(() => parseResources(params(at + "x")), isTarget(/longer than 2048/));
  });
  await t.step("count at, below and above the bound", () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `urn:r:${i}`);
    assert.equal(parseResources(params(...many(MAX_RESOURCES - 1))).length, MAX_RESOURCES - 1);
    assert.equal(parseResources(params(...many(MAX_RESOURCES))).length, MAX_RESOURCES);
    assert.throws(
      () => parseResources(params(...many(MAX_RESOURCES + 1))),
      isTarget(/at most 16 resource/),
    );
  });
  await t.step("narrowing: a subset, never more", () => {
    assert.deepEqual(narrowResources([], [API, OTHER]), [API, OTHER]);
    assert.deepEqual(narrowResources([OTHER], [API, OTHER]), [OTHER]);
    assert.deepEqual(narrowResources([API], []), [API]);
    assert.throws(
      () => narrowResources([API, "urn:x"], [API]),
      isTarget(/^resource was not part of the original grant: urn:x$/),
    );
  });
});

async function authorize(h: ReturnType<typeof harness>, query: Record<string, string | string[]>) {
  const search = new URLSearchParams({
    client_id: "app",
    redirect_uri: REDIRECT,
    response_type: "code",
    state: "st",
  });
  for (const [k, v] of Object.entries(query)) {
    for (const one of [v].flat()) search.append(k, one);
  }
  const res = await h.call(`/default/authorize?${search}`);
  assert.equal(res.status, 302);
  return new URL(res.headers.get("location")!).searchParams;
}

function token(h: ReturnType<typeof harness>, body: Array<[string, string]>) {
  return h.call("/default/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body),
  });
}

async function codeFlow(
  authorizeQuery: Record<string, string | string[]>,
  tokenExtra: Array<[string, string]> = [],
) {
  const h = harness();
  const reply = await authorize(h, authorizeQuery);
  const res = await token(h, [
    ["grant_type", "authorization_code"],
    ["code", reply.get("code")!],
    ["redirect_uri", REDIRECT],
    ["client_id", "app"],
    ...tokenExtra,
  ]);
  return { h, res };
}

Deno.test("authorization code: resource becomes the access token's aud", async (t) => {
  await t.step("one resource at authorize", async () => {
    const { res } = await codeFlow({ scope: "openid mcp", resource: API });
    const body = await res.json();
    assert.equal(claimsOf(body.access_token).aud, API);
    assert.equal(claimsOf(body.access_token).scope, "openid mcp");
    assert.equal(claimsOf(body.id_token).aud, "app"); // the id token stays the client's
    assert.equal(body.scope, "openid mcp");
  });
  await t.step("two resources: aud is both", async () => {
    const { res } = await codeFlow({ scope: "mcp", resource: [API, OTHER] });
    assert.deepEqual(claimsOf((await res.json()).access_token).aud, [API, OTHER]);
  });
  await t.step("the token request narrows", async () => {
    const { res } = await codeFlow({ resource: [API, OTHER] }, [["resource", OTHER]]);
    assert.equal(claimsOf((await res.json()).access_token).aud, OTHER);
  });
  await t.step("the token request cannot widen", async () => {
    const { res } = await codeFlow({ resource: API }, [["resource", OTHER]]);
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      error: "invalid_target",
      error_description: `resource was not part of the original grant: ${OTHER}`,
    });
  });
  await t.step("resource only at the token request", async () => {
    const { res } = await codeFlow({ scope: "api" }, [["resource", API]]);
    assert.equal(claimsOf((await res.json()).access_token).aud, API);
  });
  await t.step("a scenario's audience still wins", async () => {
    const h = harness();
    h.scenarios.push({ issuer: "default", audience: ["forced"] });
    const reply = await authorize(h, { resource: API });
    const res = await token(h, [
      ["grant_type", "authorization_code"],
      ["code", reply.get("code")!],
      ["redirect_uri", REDIRECT],
      ["client_id", "app"],
    ]);
    assert.equal(claimsOf((await res.json()).access_token).aud, "forced");
  });
});

Deno.test("authorize: a bad resource is redirected back as invalid_target", async (t) => {
  for (const bad of ["mcp", `${API}#x`, ""]) {
    await t.step(JSON.stringify(bad), async () => {
      const h = harness();
      const reply = await authorize(h, { resource: [API, bad] });
      assert.equal(reply.get("error"), "invalid_target");
      assert.equal(
        reply.get("error_description"),
        `resource must be an absolute URI without a fragment: ${bad}`,
      );
      assert.equal(reply.get("state"), "st");
      assert.equal(reply.get("code"), null);
    });
  }
});

Deno.test("upstream's scope rule for the code grant: token request, else authorize, else default", async (t) => {
  const cases: Array<[string, string | undefined, string | undefined, unknown, unknown]> = [
    ["token request's scope wins", "openid a", "openid b", "b", "openid b"],
    ["authorize's scope when the token request has none", "openid a", undefined, "a", "openid a"],
    ["only OIDC scopes at authorize: default, not []", "openid", undefined, "default", "openid"],
    ["only OIDC scopes at the token request: [] as upstream", "a", "openid", [], "openid"],
    ["no scope anywhere: default", undefined, undefined, "default", undefined],
  ];
  for (const [what, atAuthorize, atToken, aud, scope] of cases) {
    await t.step(what, async () => {
      const { res } = await codeFlow(
        atAuthorize === undefined ? {} : { scope: atAuthorize },
        atToken === undefined ? [] : [["scope", atToken]],
      );
      const body = await res.json();
      assert.deepEqual(claimsOf(body.access_token).aud, aud);
      assert.equal(body.scope, scope);
    });
  }
});

Deno.test("refresh keeps the resources unless narrowed; other grants take resource too", async (t) => {
  const { h, res } = await codeFlow({ scope: "openid mcp", resource: [API, OTHER] });
  const refresh = (await res.json()).refresh_token;
  const again = (extra: Array<[string, string]>) =>
    token(h, [["grant_type", "refresh_token"], ["refresh_token", refresh], ...extra]);
  await t.step("kept", async () => {
    assert.deepEqual(claimsOf((await (await again([])).json()).access_token).aud, [API, OTHER]);
  });
  await t.step("narrowed", async () => {
    const narrowed = await again([["resource", API]]);
    assert.equal(claimsOf((await narrowed.json()).access_token).aud, API);
  });
  await t.step("widening is invalid_target", async () => {
    const widened = await again([["resource", "urn:x"]]);
    assert.equal(widened.status, 400);
    assert.equal((await widened.json()).error, "invalid_target");
  });
  await t.step("client_credentials", async () => {
    const cc = await token(h, [
      ["grant_type", "client_credentials"],
      ["client_id", "svc"],
      ["client_secret", "s"],
      ["scope", "mcp"],
      ["resource", API],
    ]);
    const body = await cc.json();
    assert.equal(claimsOf(body.access_token).aud, API);
    assert.equal(claimsOf(body.access_token).scope, "mcp");
  });
  await t.step("client_credentials with a bad resource", async () => {
    const cc = await token(h, [
      ["grant_type", "client_credentials"],
      ["client_id", "svc"],
      ["client_secret", "s"],
      ["resource", "#"],
    ]);
    assert.equal(cc.status, 400);
    assert.deepEqual(await cc.json(), {
      error: "invalid_target",
      error_description: "resource must be an absolute URI without a fragment: #",
    });
  });
});
