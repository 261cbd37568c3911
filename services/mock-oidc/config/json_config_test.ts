import assert from "node:assert/strict";
import { SettingsError } from "@svc/shared/settings";
import { parseJsonConfig } from "./json_config.ts";
import { loadJsonConfig } from "./load_config.ts";

// An upstream README-style configuration, in upstream's key names.
const UPSTREAM = JSON.stringify({
  interactiveLogin: true,
  httpServer: "NettyWrapper",
  tokenCallbacks: [
    {
      issuerId: "issuer1",
      tokenExpiry: 120,
      requestMappings: [{
        requestParam: "scope",
        match: "scope1",
        claims: { sub: "subByScope", aud: ["audByScope"] },
      }],
    },
    {
      issuerId: "issuer2",
      requestMappings: [{
        requestParam: "someparam",
        match: "somevalue",
        typeHeader: "at+jwt",
        claims: { sub: "subBySomeParam", aud: ["audBySomeParam"] },
      }],
    },
  ],
});

Deno.test("upstream key names parse into callbacks", () => {
  const config = parseJsonConfig(UPSTREAM, "JSON_CONFIG");
  assert.equal(config.interactiveLogin, true);
  assert.equal(config.selfSignedTls, false);
  assert.equal(config.bundledKeys, true);
  assert.deepEqual(config.tokenCallbacks[0], {
    issuer: "issuer1",
    expirySeconds: 120,
    requestMappings: [{
      param: "scope",
      match: "scope1",
      claims: { sub: "subByScope", aud: ["audByScope"] },
    }],
  });
  assert.equal(config.tokenCallbacks[1].requestMappings![0].typeHeader, "at+jwt");
});

Deno.test("our key names are accepted too", () => {
  const config = parseJsonConfig(
    JSON.stringify({
      tokenCallbacks: [{
        issuer: "i",
        expirySeconds: 5,
        typ: "at+jwt",
        subject: "s",
        audience: [],
        requestMappings: [{ param: "p", match: "*", claims: {} }],
      }],
    }),
    "x",
  );
  assert.deepEqual(config.tokenCallbacks[0], {
    issuer: "i",
    expirySeconds: 5,
    typ: "at+jwt",
    subject: "s",
    audience: [],
    requestMappings: [{ param: "p", match: "*", claims: {} }],
  });
});

Deno.test("tokenProvider: algorithm, systemTime, initialKeys as a JSON string (upstream form)", () => {
  const jwk = { kty: "EC", crv: "P-256", x: "x", y: "y", d: "d" };
  const config = parseJsonConfig(
    JSON.stringify({
      tokenProvider: {
        keyProvider: { algorithm: "ES256", initialKeys: JSON.stringify(jwk) },
        systemTime: "2020-01-21T00:00:00Z",
      },
    }),
    "x",
  );
  assert.equal(config.algorithm, "ES256");
  assert.equal(config.systemTime, Date.parse("2020-01-21T00:00:00Z"));
  assert.equal(config.bundledKeys, false);
  assert.deepEqual(config.initialKeys, [{ jwk, alg: "ES256" }]);
});

Deno.test("initialKeys also accept an object and a list", () => {
  const rsa = { kty: "RSA", n: "n", e: "AQAB", d: "d" };
  const one = parseJsonConfig(
    JSON.stringify({ tokenProvider: { keyProvider: { initialKeys: rsa } } }),
    "x",
  );
  assert.equal(one.initialKeys[0].alg, "RS256");
  const list = parseJsonConfig(
    JSON.stringify({
      tokenProvider: { keyProvider: { initialKeys: [rsa, { ...rsa, alg: "PS384" }] } },
    }),
    "x",
  );
  assert.deepEqual(list.initialKeys.map((k) => k.alg), ["RS256", "PS384"]);
});

Deno.test("any tokenProvider (even only systemTime) turns the bundled keys off", () => {
  const config = parseJsonConfig('{"tokenProvider":{"systemTime":"2020-01-01T00:00:00Z"}}', "x");
  assert.equal(config.bundledKeys, false);
});

Deno.test("httpServer: a string is accepted; {ssl:{}} asks for a self-signed certificate", () => {
  assert.equal(parseJsonConfig('{"httpServer":"MockWebServerWrapper"}', "x").selfSignedTls, false);
  assert.equal(
    parseJsonConfig('{"httpServer":{"type":"NettyWrapper","ssl":{}}}', "x").selfSignedTls,
    true,
  );
});

Deno.test("invalid configuration names the key in one line", () => {
  const cases: [string, string][] = [
    [
      '{"tokenProvider":{"keyProvider":{"algorithm":"HS256"}}}',
      "tokenProvider.keyProvider.algorithm",
    ],
    [
      '{"tokenProvider":{"keyProvider":{"algorithm":"EdDSA"}}}',
      "tokenProvider.keyProvider.algorithm",
    ],
    ['{"tokenProvider":{"systemTime":"yesterday"}}', "tokenProvider.systemTime"],
    ['{"interactiveLogin":"yes"}', "interactiveLogin"],
    ['{"tokenCallbacks":[{"tokenExpiry":1}]}', "tokenCallbacks[0].issuerId"],
    [
      '{"tokenCallbacks":[{"issuerId":"a","requestMappings":[{"match":"*"}]}]}',
      "tokenCallbacks[0].requestMappings[0].requestParam",
    ],
    [
      '{"tokenProvider":{"keyProvider":{"initialKeys":"{not json"}}}',
      "tokenProvider.keyProvider.initialKeys[0]",
    ],
    [
      '{"tokenProvider":{"keyProvider":{"initialKeys":{"kty":"RSA","n":"n","e":"e"}}}}',
      "tokenProvider.keyProvider.initialKeys[0]",
    ],
    ['{"httpServer":{"ssl":{"keystoreFile":"x.p12"}}}', "httpServer.ssl.keystoreFile"],
    ["{oops", "JSON_CONFIG"],
  ];
  for (const [text, key] of cases) {
    assert.throws(() => parseJsonConfig(text, "JSON_CONFIG"), (err: unknown) => {
      assert.ok(err instanceof SettingsError, text);
      assert.equal(err.key, key, text);
      assert.ok(!err.message.includes("\n"));
      return true;
    });
  }
});

Deno.test("config source order: JSON_CONFIG, JSON_CONFIG_PATH, ./config.json, defaults", async () => {
  const files: Record<string, string> = {
    "/cfg.json": '{"rotateRefreshToken":true}',
    "/work/config.json": '{"interactiveLogin":true}',
  };
  const read = (path: string) =>
    files[path] !== undefined
      ? Promise.resolve(files[path])
      : Promise.reject(new Deno.errors.NotFound(path));
  const load = (env: Record<string, string>, cwd = "/work") =>
    loadJsonConfig({ env: (n) => env[n], readTextFile: read, cwd });
  assert.equal(
    (await load({ JSON_CONFIG: "{}", JSON_CONFIG_PATH: "/cfg.json" })).source,
    "JSON_CONFIG",
  );
  const fromPath = await load({ JSON_CONFIG_PATH: "/cfg.json" });
  assert.equal(fromPath.config.rotateRefreshToken, true);
  const local = await load({});
  assert.equal(local.source, "./config.json");
  assert.equal(local.config.interactiveLogin, true);
  assert.equal((await load({}, "/empty")).source, "defaults");
  await assert.rejects(load({ JSON_CONFIG_PATH: "/missing.json" }), (err: SettingsError) => {
    assert.equal(err.key, "JSON_CONFIG_PATH");
    return true;
  });
});

Deno.test("loginPagePath is read at load; an unreadable file is a SettingsError naming the key", async () => {
  const read = (path: string) =>
    path === "/login.html"
      ? Promise.resolve("<form method=post><input name=username></form>")
      : Promise.reject(new Deno.errors.NotFound(path));
  const load = (json: string) =>
    loadJsonConfig({ env: (n) => n === "JSON_CONFIG" ? json : undefined, readTextFile: read });
  const loaded = await load('{"loginPagePath":"/login.html"}');
  assert.equal(loaded.config.loginPage, "<form method=post><input name=username></form>");
  assert.equal((await load("{}")).config.loginPage, undefined);
  await assert.rejects(load('{"loginPagePath":"/missing.html"}'), (err: SettingsError) => {
    assert.equal(err.key, "loginPagePath");
    return true;
  });
});
