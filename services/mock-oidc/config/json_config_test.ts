import assert from "node:assert/strict";
import { SettingsError } from "@svc/shared/settings";
import {
  MAX_LOGIN_PRESETS,
  MAX_PRESET_CLAIMS_CHARS,
  MAX_PRESET_USERNAME_CHARS,
  parseJsonConfig,
  parseLoginPresets,
} from "./json_config.ts";
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
      '{"tokenProvider":{"keyProvider":{"algorithm":"ES256K"}}}',
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
    ['{"issuers":{}}', "issuers"],
    ['{"issuers":[1]}', "issuers[0]"],
    ['{"issuers":[{}]}', "issuers[0].issuer"],
    ['{"issuers":[{"issuer":"a//b"}]}', "issuers[0].issuer"],
    ['{"issuers":[{"issuer":"a"},{"issuer":"a"}]}', "issuers[1].issuer"],
    ['{"issuers":[{"issuer":"a","trailingSlash":1}]}', "issuers[0].trailingSlash"],
    ['{"issuers":[{"issuer":"a","discovery":[]}]}', "issuers[0].discovery"],
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
  // A missing JSON_CONFIG_PATH file falls back to the defaults, as upstream (with a warning).
  const missing = await load({ JSON_CONFIG_PATH: "/missing.json" });
  assert.equal(missing.source, "defaults");
  assert.equal(missing.warnings.length, 1);
});

Deno.test("loginPagePath is not read at load (the login page reads it per request)", async () => {
  const reads: string[] = [];
  const read = (path: string) => {
    reads.push(path);
    return Promise.reject(new Deno.errors.NotFound(path));
  };
  const loaded = await loadJsonConfig({
    env: (n) => n === "JSON_CONFIG" ? '{"loginPagePath":"/missing.html"}' : undefined,
    readTextFile: read,
  });
  assert.equal(loaded.config.loginPagePath, "/missing.html");
  assert.deepEqual(reads, []);
});

Deno.test("a JSON_CONFIG_PATH naming no file starts with defaults and a warning", async (t) => {
  const env = (n: string) => n === "JSON_CONFIG_PATH" ? "/nope.json" : undefined;
  await t.step("missing: defaults and one warning", async () => {
    const loaded = await loadJsonConfig({
      env,
      readTextFile: (p) => Promise.reject(new Deno.errors.NotFound(p)),
    });
    assert.equal(loaded.source, "defaults");
    assert.equal(loaded.warnings.length, 1);
    assert.match(loaded.warnings[0], /JSON_CONFIG_PATH names no file/);
  });
  await t.step("unreadable for another reason: the start stops naming the key", async () => {
    await assert.rejects(
      loadJsonConfig({
        env,
        readTextFile: (p) => Promise.reject(new Deno.errors.PermissionDenied(p)),
      }),
      (err: SettingsError) => err.key === "JSON_CONFIG_PATH",
    );
  });
  await t.step("present: its content, no warning", async () => {
    const loaded = await loadJsonConfig({
      env,
      readTextFile: () => Promise.resolve('{"interactiveLogin":true}'),
    });
    assert.equal(loaded.config.interactiveLogin, true);
    assert.deepEqual(loaded.warnings, []);
  });
});

Deno.test("httpServer.ssl.keystoreFile is refused with the openssl commands to convert it", () => {
  assert.throws(
    () => parseJsonConfig('{"httpServer":{"ssl":{"keystoreFile":"k.p12"}}}', "JSON_CONFIG"),
    (err: SettingsError) =>
      err.key === "httpServer.ssl.keystoreFile" &&
      /openssl pkcs12 -in keystore\.p12/.test(err.message),
  );
});

Deno.test("a tokenCallbacks pattern that could backtrack catastrophically stops the start", () => {
  const config = JSON.stringify({
    tokenCallbacks: [{
      issuerId: "a",
      requestMappings: [{ requestParam: "scope", match: "(x|xx)*y", claims: {} }],
    }],
  });
  assert.throws(
    () => parseJsonConfig(config, "JSON_CONFIG"),
    (err: SettingsError) =>
      err instanceof SettingsError &&
      err.message.includes("tokenCallbacks[0].requestMappings[0].match"),
  );
});

Deno.test("string scalars that upstream's Jackson coerces are accepted", () => {
  const config = parseJsonConfig(
    JSON.stringify({
      interactiveLogin: "true",
      rotateRefreshToken: "false",
      tokenCallbacks: [{ issuerId: "a", tokenExpiry: "120" }],
    }),
    "JSON_CONFIG",
  );
  assert.equal(config.interactiveLogin, true);
  assert.equal(config.rotateRefreshToken, false);
  assert.equal(config.tokenCallbacks[0].expirySeconds, 120);
  for (
    const bad of [
      '{"interactiveLogin":"yes"}',
      '{"tokenCallbacks":[{"issuerId":"a","tokenExpiry":"1.5"}]}',
    ]
  ) {
    assert.throws(() => parseJsonConfig(bad, "JSON_CONFIG"), SettingsError, bad);
  }
});

Deno.test("issuers: per-issuer trailing slash and discovery fields, multi-segment ids", () => {
  const config = parseJsonConfig(
    JSON.stringify({
      issuers: [
        { issuer: "realms/x", trailingSlash: true },
        { issuer: "tenant1/v2.0", discovery: { "tenant_region_scope": "EU" }, other: 1 },
      ],
    }),
    "JSON_CONFIG",
  );
  assert.deepEqual(config.issuers, {
    "realms/x": { trailingSlash: true },
    "tenant1/v2.0": { discovery: { "tenant_region_scope": "EU" } },
  });
  assert.deepEqual(parseJsonConfig("{}", "JSON_CONFIG").issuers, {});
});

const users = (n: number) => Array.from({ length: n }, (_, i) => ({ username: `u${i}` }));
/** Claims whose JSON is exactly `chars` characters: {"x":"…"}. */
const claimsOf = (chars: number) => ({ x: "a".repeat(chars - '{"x":""}'.length) });

Deno.test("loginPresets: absent or null is none; entries keep username and claims", () => {
  assert.deepEqual(parseLoginPresets(undefined), []);
  assert.deepEqual(parseLoginPresets(null), []);
  assert.deepEqual(
    parseLoginPresets([{ username: "alice", claims: { roles: ["admin"] } }, { username: "bob" }]),
    [{ username: "alice", claims: { roles: ["admin"] } }, { username: "bob" }],
  );
  const config = parseJsonConfig('{"loginPresets":[{"username":"carol"}]}', "JSON_CONFIG");
  assert.deepEqual(config.loginPresets, [{ username: "carol" }]);
  assert.deepEqual(parseJsonConfig("{}", "JSON_CONFIG").loginPresets, []);
});

Deno.test("loginPresets: count at, below and above the bound", () => {
  assert.equal(parseLoginPresets(users(MAX_LOGIN_PRESETS - 1)).length, 49);
  assert.equal(parseLoginPresets(users(MAX_LOGIN_PRESETS)).length, 50);
  assert.throws(() => parseLoginPresets(users(MAX_LOGIN_PRESETS + 1)), {
    message: "Invalid configuration: loginPresets: at most 50 presets (got 51)",
  });
});

Deno.test("loginPresets: username length at, below and above the bound; empty; controls", () => {
  const refusal = {
    message: "Invalid configuration: loginPresets[0].username: must be a string of 1 to 256 " +
      "characters without control characters",
  };
  for (const n of [1, MAX_PRESET_USERNAME_CHARS - 1, MAX_PRESET_USERNAME_CHARS]) {
    assert.equal(parseLoginPresets([{ username: "u".repeat(n) }])[0].username.length, n);
  }
  for (const username of ["u".repeat(MAX_PRESET_USERNAME_CHARS + 1), "", "a\nb", "a\u0085", 7]) {
    assert.throws(() => parseLoginPresets([{ username }]), refusal);
  }
  assert.throws(() => parseLoginPresets([{}]), refusal);
});

Deno.test("loginPresets: claims size at, below and above the bound", () => {
  for (const n of [MAX_PRESET_CLAIMS_CHARS - 1, MAX_PRESET_CLAIMS_CHARS]) {
    const [preset] = parseLoginPresets([{ username: "a", claims: claimsOf(n) }]);
    assert.equal(JSON.stringify(preset.claims).length, n);
  }
  assert.throws(() => parseLoginPresets([{ username: "a", claims: claimsOf(4097) }]), {
    message: "Invalid configuration: loginPresets[0].claims: at most 4096 characters as JSON " +
      "(got 4097)",
  });
});

Deno.test("loginPresets: each refusal names the entry", () => {
  const cases: [unknown, string][] = [
    [{ username: "a" }, "loginPresets: must be a list"],
    [["a"], "loginPresets[0]: must be an object"],
    [[{ username: "a" }, { username: "a" }], "loginPresets[1].username: is listed twice"],
    [[{ username: "a", claims: [] }], "loginPresets[0].claims: must be an object"],
    [[{ username: "a", claims: "x" }], "loginPresets[0].claims: must be an object"],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => parseLoginPresets(value), { message: `Invalid configuration: ${message}` });
  }
  assert.throws(() => parseJsonConfig('{"loginPresets":{}}', "JSON_CONFIG"), {
    name: "SettingsError",
    message: "Invalid configuration: loginPresets: must be a list",
  });
});
