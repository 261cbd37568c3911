import assert from "node:assert/strict";
import { runMain } from "@svc/shared/main";
import { SettingsError } from "@svc/shared/settings";
import { main } from "./main.ts";
import { SETTINGS } from "./settings.ts";

const resolveSettings = (
  table: typeof SETTINGS,
  input: { args: string[]; env: (name: string) => string | undefined },
) => table.resolve(input);

/**
 * The contract's configuration table (docs/mock-oidc.md#settings): key → default (durations in ms).
 * The flag is the key with `-` for `_`. `--read-header-timeout` and `--idle-timeout` are refused
 * (see the test below): Deno cannot enforce them.
 */
const SPEC_DEFAULTS: Record<string, unknown> = {
  "addr": "",
  "server_hostname": "",
  "server_port": 8080,
  "metrics_addr": ":9090",
  "log_level": "info",
  "log_format": "json",
  "read_timeout": 5_000,
  "write_timeout": 10_000,
  "request_timeout": 15_000,
  "shutdown_grace": 15_000,
  "cors_allowed_origins": [],
  "trusted_proxy_header": "",
  "tls_cert_file": "",
  "tls_key_file": "",
  "public_base_url": "",
  "control_enabled": true,
  "control_addr": "",
  "control_token": "",
  "client_metadata_allow_http_loopback": false,
  "client_metadata_allow_private_networks": false,
  "code_redirect_uri_optional": false,
  // Issuers whose DPoP proofs need a server nonce (docs/mock-oidc.md#dpop).
  "dpop_nonce_issuers": [],
  // Issuers whose authorize takes pushed requests only (docs/mock-oidc.md#pushed-authorization-requests).
  "par_required_issuers": [],
  "rate_limit_enabled": false,
  "rate_limit_rps": 10,
  "rate_limit_burst": 20,
  "tracing_enabled": false,
  // The signer (read from the environment only through this table).
  "signer": "webcrypto",
  "signer_threads": 0,
  "signer_libcrypto": "libcrypto.so.3",
  // The capture log's memory budget (docs/mock-oidc.md#the-capture-log-is-bounded).
  "capture_max_bytes": 64 * 1024 * 1024,
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
      if (name === "log_level") return ["debug", "warn", "debug"];
      if (name === "log_format") return ["text", "json", "text"];
      if (name === "signer") return ["openssl", "webcrypto", "openssl"];
      if (name === "public_base_url") {
        return ["https://idp.example/auth", "http://127.0.0.1:1", "https://idp.example/auth"];
      }
      if (name.endsWith("addr")) return ["127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7001"];
      return ["first-value", "second-value", "first-value"];
  }
}

const SETTINGS_VALUES = SETTINGS.resolve().values;

Deno.test("the settings table has exactly the contract's flags and defaults", () => {
  const defaults = resolveSettings(SETTINGS, { args: [], env: () => undefined }).values;
  assert.deepEqual(Object.keys(defaults).sort(), Object.keys(SPEC_DEFAULTS).sort());
  for (const [name, value] of Object.entries(SPEC_DEFAULTS)) {
    assert.deepEqual(defaults[name as keyof typeof defaults], value, name);
  }
});

Deno.test("every flag reads MOCK_OIDC_<FLAG>, and the flag beats the environment", async (t) => {
  for (const row of SETTINGS.rows) {
    const key = row.key as keyof typeof SETTINGS_VALUES;
    await t.step(`--${row.flag}`, () => {
      assert.equal(row.flag, row.key.replaceAll("_", "-"));
      const envName = `MOCK_OIDC_${row.key.toUpperCase()}`;
      assert.ok(row.env.includes(envName), `${row.key} reads ${envName}`);
      const [first, second, resolved] = samples(row.key, row.spec.type);
      const fromEnv = resolveSettings(SETTINGS, {
        args: [],
        env: (name) => name === envName ? first : undefined,
      });
      assert.deepEqual(fromEnv.values[key], resolved);
      assert.equal(fromEnv.sources[key], "env");
      const fromFlag = resolveSettings(SETTINGS, {
        args: [`--${row.flag}=${first}`],
        env: (name) => name === envName ? second : undefined,
      });
      assert.deepEqual(fromFlag.values[key], resolved);
      assert.equal(fromFlag.sources[key], "flag");
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
  assert.equal(values.log_level, "warn");
  assert.equal(values.server_hostname, "0.0.0.0");
  assert.equal(values.server_port, 8111);
  const portOnly = resolveSettings(SETTINGS, {
    args: [],
    env: (n) => n === "PORT" ? "8222" : undefined,
  });
  assert.equal(portOnly.values.server_port, 8222);
  const prefixed = resolveSettings(SETTINGS, {
    args: [],
    env: (n) => ({ MOCK_OIDC_LOG_LEVEL: "error", LOG_LEVEL: "warn" } as Record<string, string>)[n],
  });
  assert.equal(prefixed.values.log_level, "error");
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
    assert.equal(resolve(`--signer=${signer}`).values.signer, signer);
  }
  assert.throws(() => resolve("--signer=openssl-thread"), /signer/);
  for (const threads of [0, 1, 255, 256]) {
    assert.equal(resolve(`--signer-threads=${threads}`).values.signer_threads, threads);
  }
  for (const threads of ["-1", "257", "two"]) {
    assert.throws(() => resolve(`--signer-threads=${threads}`), /signer-threads/);
  }
});

Deno.test("--public-base-url takes an absolute http(s) URL without query, fragment or credentials", () => {
  const resolve = (...args: string[]) => resolveSettings(SETTINGS, { args, env: () => undefined });
  for (const url of ["", "https://idp.example", "http://127.0.0.1:8080/a/b/", "https://h/x"]) {
    assert.equal(resolve(`--public-base-url=${url}`).values.public_base_url, url);
  }
  const refused: [string, string][] = [
    ["idp.example", "must be an absolute http or https URL"],
    ["/auth", "must be an absolute http or https URL"],
    ["file:///etc/passwd", "must be an absolute http or https URL"],
    ["ftp://h/x", "must be an absolute http or https URL"],
    ["https://u:p@h/x", "must not carry credentials"],
    ["https://h/x?a=1", "must not have a query or a fragment"],
    ["https://h/x#f", "must not have a query or a fragment"],
    ["https://h/x?", "must not have a query or a fragment"],
  ];
  for (const [url, reason] of refused) {
    assert.throws(
      () => resolve(`--public-base-url=${url}`),
      (err: Error) => err.message.includes("public-base-url") && err.message.includes(reason),
      url,
    );
  }
});

Deno.test("--read-header-timeout and --idle-timeout are refused with the reason", async (t) => {
  const inputs: [string, { args: string[]; env: (name: string) => string | undefined }][] = [
    ["read_header_timeout", { args: ["--read-header-timeout=5s"], env: () => undefined }],
    ["idle_timeout", { args: ["--idle-timeout", "2m"], env: () => undefined }],
    ["idle_timeout", { args: [], env: (n) => n === "MOCK_OIDC_IDLE_TIMEOUT" ? "2m" : undefined }],
  ];
  for (const [key, input] of inputs) {
    await t.step(`${key} ${JSON.stringify(input.args)}`, () => {
      assert.throws(() => resolveSettings(SETTINGS, input), (e: Error) => {
        assert.ok(e instanceof SettingsError);
        assert.equal(e.key, key);
        assert.match(e.message, /not supported: Deno\.serve \(2\.9\)/);
        return true;
      });
    });
  }
});

Deno.test("--help lists every setting with flag, variable and default, and why two are missing", async () => {
  const out: string[] = [];
  const code = await main(["--help"], () => undefined, { out: (l) => out.push(l), err: () => {} });
  assert.equal(code, 0);
  const help = out.join("\n");
  assert.match(help, /^Usage: mock-oidc \[flags\]/);
  for (const row of SETTINGS.rows) {
    assert.ok(help.includes(`  --${row.flag} `), row.key);
    for (const name of row.env) assert.ok(help.includes(name), name);
  }
  assert.match(
    help,
    /--signer webcrypto\|openssl\n.*\(default "webcrypto"\)\n {6}env MOCK_OIDC_SIGNER/,
  );
  assert.match(help, /--write-timeout duration\n.*\(default 10s\)/);
  assert.match(
    help,
    /--control-token string\n {6}token required in X-Mock-Control-Token \(or as Authorization: B/,
  );
  assert.match(help, /Not supported \(refused when set\):\n {2}--read-header-timeout\n/);
  assert.match(
    help,
    /\n {2}--idle-timeout\n {6}Deno\.serve \(2\.9\) has no keep-alive idle timeout/,
  );
});

Deno.test("main exits 2 with one line naming the setting, never the secret value", async () => {
  const err: string[] = [];
  const code = await runMain(main, {
    name: "mock-oidc",
    args: ["--rate-limit-burst=0"],
    env: (n) => n === "MOCK_OIDC_CONTROL_TOKEN" ? "s3cret-token" : undefined,
    io: { out: () => {}, err: (l) => err.push(l) },
    exit: () => {},
  });
  assert.equal(code, 2);
  assert.equal(err.length, 1);
  assert.match(
    err[0],
    /^mock-oidc: Cannot read setting "rate_limit_burst" from flag --rate-limit-burst/,
  );
});

Deno.test("LOG_LEVEL takes upstream's logback levels in any case", () => {
  const level = (value: string) =>
    resolveSettings(SETTINGS, { args: [], env: (n) => n === "LOG_LEVEL" ? value : undefined })
      .values.log_level;
  for (
    const [value, expected] of [
      ["INFO", "info"],
      ["Debug", "debug"],
      ["WARN", "warn"],
      ["ERROR", "error"],
      ["TRACE", "debug"],
      ["ALL", "debug"],
      ["OFF", "error"],
      ["info", "info"],
    ]
  ) {
    assert.equal(level(value), expected, value);
  }
  assert.throws(() => level("LOUD"), /expected one of debug, info, warn, error/);
  assert.equal(
    resolveSettings(SETTINGS, { args: ["--log-level", "TRACE"], env: () => undefined }).values
      .log_level,
    "debug",
  );
});
