import assert from "node:assert/strict";
import { resolveSettings } from "@svc/shared/settings";
import { SETTINGS } from "./settings.ts";

/** The spec's configuration table: flag → default (durations in ms). */
const SPEC_DEFAULTS: Record<string, unknown> = {
  "addr": "",
  "server-hostname": "",
  "server-port": 8080,
  "metrics-addr": ":9090",
  "log-level": "info",
  "log-format": "json",
  "read-timeout": 5_000,
  "read-header-timeout": 5_000,
  "write-timeout": 10_000,
  "idle-timeout": 120_000,
  "request-timeout": 15_000,
  "shutdown-grace": 15_000,
  "cors-allowed-origins": [],
  "trusted-proxy-header": "",
  "tls-cert-file": "",
  "tls-key-file": "",
  "control-enabled": true,
  "control-addr": "",
  "control-token": "",
  "rate-limit-enabled": false,
  "rate-limit-rps": 10,
  "rate-limit-burst": 20,
  "tracing-enabled": false,
  // Issue 9: the signer (no longer read from the environment outside this table).
  "signer": "webcrypto",
  "signer-threads": 0,
  "signer-libcrypto": "libcrypto.so.3",
};

/** Two distinct valid inputs per flag (text) and what the first resolves to. */
function samples(name: string, type: string): [string, string, unknown] {
  switch (type) {
    case "bool":
      return SPEC_DEFAULTS[name] ? ["false", "true", false] : ["true", "false", true];
    case "int":
      return ["7", "9", 7];
    case "float":
      return ["2.5", "3", 2.5];
    case "duration":
      return ["1m30s", "2s", 90_000];
    case "list":
      return ["https://a.example,https://b.example", "https://c.example", [
        "https://a.example",
        "https://b.example",
      ]];
    default:
      if (name === "log-level") return ["debug", "warn", "debug"];
      if (name === "log-format") return ["text", "json", "text"];
      if (name === "signer") return ["openssl", "webcrypto", "openssl"];
      if (name.endsWith("addr")) return ["127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7001"];
      return ["first-value", "second-value", "first-value"];
  }
}

Deno.test("the settings table has exactly the spec's flags and defaults", () => {
  const defaults = resolveSettings(SETTINGS, { args: [], env: () => undefined }).values;
  assert.deepEqual(Object.keys(defaults).sort(), Object.keys(SPEC_DEFAULTS).sort());
  for (const [name, value] of Object.entries(SPEC_DEFAULTS)) {
    assert.deepEqual(defaults[name], value, name);
  }
});

Deno.test("every flag reads MOCK_OIDC_<FLAG>, and the flag beats the environment", async (t) => {
  for (const spec of SETTINGS) {
    await t.step(`--${spec.name}`, () => {
      const envName = `MOCK_OIDC_${spec.name.toUpperCase().replaceAll("-", "_")}`;
      assert.ok([spec.env ?? []].flat().includes(envName), `${spec.name} reads ${envName}`);
      const [first, second, resolved] = samples(spec.name, spec.type);
      const fromEnv = resolveSettings(SETTINGS, {
        args: [],
        env: (name) => name === envName ? first : undefined,
      });
      assert.deepEqual(fromEnv.values[spec.name], resolved);
      assert.equal(fromEnv.sources[spec.name], "env");
      const fromFlag = resolveSettings(SETTINGS, {
        args: [`--${spec.name}=${first}`],
        env: (name) => name === envName ? second : undefined,
      });
      assert.deepEqual(fromFlag.values[spec.name], resolved);
      assert.equal(fromFlag.sources[spec.name], "flag");
    });
  }
});

Deno.test("upstream's unprefixed variables feed their flags after the prefixed one", () => {
  const env: Record<string, string> = {
    LOG_LEVEL: "warn",
    SERVER_HOSTNAME: "0.0.0.0",
    SERVER_PORT: "8111",
    PORT: "8222",
  };
  const { values } = resolveSettings(SETTINGS, { args: [], env: (name) => env[name] });
  assert.equal(values["log-level"], "warn");
  assert.equal(values["server-hostname"], "0.0.0.0");
  assert.equal(values["server-port"], 8111);
  const portOnly = resolveSettings(SETTINGS, {
    args: [],
    env: (n) => n === "PORT" ? "8222" : undefined,
  });
  assert.equal(portOnly.values["server-port"], 8222);
  const prefixed = resolveSettings(SETTINGS, {
    args: [],
    env: (n) => ({ MOCK_OIDC_LOG_LEVEL: "error", LOG_LEVEL: "warn" } as Record<string, string>)[n],
  });
  assert.equal(prefixed.values["log-level"], "error");
});

Deno.test("bad flag values are rejected naming the flag, never echoing a secret", () => {
  assert.throws(
    () => resolveSettings(SETTINGS, { args: ["--read-timeout=soon"], env: () => undefined }),
    /read-timeout/,
  );
  assert.throws(
    () => resolveSettings(SETTINGS, { args: ["--log-level=loud"], env: () => undefined }),
    /log-level/,
  );
  assert.throws(
    () => resolveSettings(SETTINGS, { args: ["--rate-limit-burst=0"], env: () => undefined }),
    /rate-limit-burst/,
  );
});

Deno.test("--signer takes webcrypto or openssl; --signer-threads takes 0 (one per core) to 256", () => {
  const resolve = (...args: string[]) => resolveSettings(SETTINGS, { args, env: () => undefined });
  for (const signer of ["webcrypto", "openssl"]) {
    assert.equal(resolve(`--signer=${signer}`).values["signer"], signer);
  }
  assert.throws(() => resolve("--signer=openssl-thread"), /signer/);
  for (const threads of [0, 1, 255, 256]) {
    assert.equal(resolve(`--signer-threads=${threads}`).values["signer-threads"], threads);
  }
  for (const threads of ["-1", "257", "two"]) {
    assert.throws(() => resolve(`--signer-threads=${threads}`), /signer-threads/);
  }
});
