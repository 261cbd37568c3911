import assert from "node:assert/strict";
import {
  defineSettings,
  loadSettingsFileDecoder,
  SettingsError,
  type SettingSource,
} from "./mod.ts";

// resolve() with file text needs the decoder loaded first (load() does it by itself).
await loadSettingsFileDecoder();

const settings = defineSettings({
  prefix: "SVC",
  configFile: { flag: "config", defaultPath: "/etc/svc/config.yaml" },
  settings: {
    "addr": { type: "string", default: ":8080", help: "listen address" },
    "port": {
      type: "int",
      default: 8080,
      min: 1,
      max: 65535,
      env: ["SVC_PORT", "PORT"],
      help: "p",
    },
    "ratio": { type: "float", default: 1.5, help: "r" },
    "enabled": { type: "bool", default: true, help: "e" },
    "proxy.shutdown_grace": { type: "duration", default: 30_000, min: 1, help: "drain time" },
    "proxy.max_streams": { type: "int", default: 64, help: "streams" },
    "origins": { type: "list", default: ["http://a"], help: "o" },
    "log.level": { type: "string", choices: ["debug", "info"], default: "info", help: "l" },
    "bucket": { type: "string", required: true, help: "b" },
    "region": { type: "string", help: "optional, no default" },
    "token": { type: "string", secret: true, flag: false, help: "env-only credential" },
    "dsn": {
      type: "string",
      secret: true,
      default: "",
      validate: (v) => v.startsWith("pg://") || v === "" ? undefined : `bad URL ${v}`,
      help: "database URL",
    },
    "profiles": { type: "list", flag: false, env: false, help: "YAML-only list" },
  },
});

const env = (vars: Record<string, string>) => (name: string) => vars[name];
const file = (text: string) => ({ path: "svc.yaml", text });
const base = { args: ["--bucket=b"] };

Deno.test("defineSettings() infers each value's type from its row", () => {
  const { values } = settings.resolve(base);
  // Compile-time checks: these assignments fail `deno check` if inference regresses.
  const port: number = values.port;
  const enabled: boolean = values.enabled;
  const origins: string[] = values.origins;
  const level: "debug" | "info" = values["log.level"];
  const bucket: string = values.bucket;
  const region: string | undefined = values.region;
  // @ts-expect-error an optional setting without default may be undefined
  const regionNarrow: string = values.region;
  // @ts-expect-error unknown keys are not properties
  values.nope;
  assert.deepEqual(
    [port, enabled, origins, level, bucket, region, regionNarrow],
    [8080, true, ["http://a"], "info", "b", undefined, undefined],
  );
});

Deno.test("defineSettings() resolves each key flag > env > file > default", async (t) => {
  const yaml = "bucket: b\nport: 81\nproxy:\n  shutdown_grace: 10s\n  max_streams: 5\n";
  const cases: [string, Parameters<typeof settings.resolve>[0], number, SettingSource][] = [
    ["default", base, 8080, "default"],
    ["file beats default", { file: file(yaml) }, 81, "file"],
    ["env beats file", { env: env({ PORT: "82" }), file: file(yaml) }, 82, "env"],
    ["first env name wins", { ...base, env: env({ PORT: "82", SVC_PORT: "83" }) }, 83, "env"],
    [
      "flag beats env and file",
      { args: ["--port", "84"], env: env({ SVC_PORT: "83" }), file: file(yaml) },
      84,
      "flag",
    ],
  ];
  for (const [label, input, port, source] of cases) {
    await t.step(label, () => {
      const r = settings.resolve(input);
      assert.equal(r.values.port, port);
      assert.equal(r.sources.port, source);
    });
  }
  await t.step("each key resolves independently", () => {
    const r = settings.resolve({
      args: ["--proxy.shutdown-grace=1m"],
      env: env({ SVC_PROXY_MAX_STREAMS: "7" }),
      file: file(yaml + "ratio: 0.5\n"),
    });
    assert.deepEqual(
      [r.values["proxy.shutdown_grace"], r.values["proxy.max_streams"], r.values.ratio],
      [60_000, 7, 0.5],
    );
    assert.deepEqual(
      [r.sources["proxy.shutdown_grace"], r.sources["proxy.max_streams"], r.sources.ratio],
      ["flag", "env", "file"],
    );
    assert.equal(r.sources.addr, "default");
    assert.equal(r.sources.bucket, "file");
    assert.equal(r.configFile, "svc.yaml");
  });
});

Deno.test("defineSettings() derives flags and variables from keys", async (t) => {
  await t.step("flag: `_` written as `-`, `_` accepted too", () => {
    for (const flag of ["--proxy.shutdown-grace=2s", "--proxy.shutdown_grace=2s"]) {
      assert.equal(
        settings.resolve({ args: [...base.args, flag] }).values[
          "proxy.shutdown_grace"
        ],
        2_000,
      );
    }
  });
  await t.step("variable: prefix, `.` written as `_`", () => {
    const r = settings.resolve({ ...base, env: env({ SVC_PROXY_SHUTDOWN_GRACE: "3s" }) });
    assert.equal(r.values["proxy.shutdown_grace"], 3_000);
  });
  await t.step("flag: false and env: false turn a source off", () => {
    assert.throws(() => settings.resolve({ args: [...base.args, "--token=x"] }), SettingsError);
    assert.equal(
      settings.resolve({ ...base, env: env({ SVC_PROFILES: "a" }) }).values.profiles,
      undefined,
    );
    assert.equal(settings.resolve({ ...base, env: env({ SVC_TOKEN: "t0k" }) }).values.token, "t0k");
  });
  await t.step("flag forms, bare booleans and positionals", () => {
    const r = settings.resolve({
      args: ["serve", "--addr=:1", "-port", "2", "--enabled", "x", "--bucket", "b", "--", "--y"],
    });
    assert.deepEqual([r.values.addr, r.values.port, r.values.enabled], [":1", 2, true]);
    assert.deepEqual(r.positionals, ["serve", "x", "--y"]);
    assert.equal(
      settings.resolve({ args: [...base.args, "--enabled=false"] }).values.enabled,
      false,
    );
  });
  await t.step("lists: comma-separated text, YAML sequences, defaults copied", () => {
    const r = settings.resolve({ ...base, env: env({ SVC_ORIGINS: "http://x, http://y,," }) });
    assert.deepEqual(r.values.origins, ["http://x", "http://y"]);
    const f = settings.resolve({ file: file("bucket: b\nprofiles: [a, b]\n") });
    assert.deepEqual(f.values.profiles, ["a", "b"]);
    settings.resolve(base).values.origins.push("mutated");
    assert.deepEqual(settings.resolve(base).values.origins, ["http://a"]);
  });
  await t.step("durations are Go durations in ms; a bare 0 in YAML is 0s", () => {
    const r = settings.resolve({ file: file("bucket: b\nproxy.shutdown_grace: 1m30s\n") });
    assert.equal(r.values["proxy.shutdown_grace"], 90_000);
    assert.throws(
      () => settings.resolve({ file: file("bucket: b\nproxy.shutdown_grace: 0\n") }),
      /at least 1ms/,
    );
  });
});

Deno.test("defineSettings() rejects bad values naming the key, never the value", async (t) => {
  const secretish = "s3cr3t-Va1ue";
  const cases: [string, Parameters<typeof settings.resolve>[0], string][] = [
    ["bool", { args: ["--enabled=" + secretish] }, "enabled"],
    ["int", { ...base, env: env({ SVC_PORT: secretish }) }, "port"],
    ["int below min", { args: [...base.args, "--port=0"] }, "port"],
    ["int above max", { args: [...base.args, "--port=65536"] }, "port"],
    ["float", { args: ["--ratio=" + secretish] }, "ratio"],
    ["duration", { args: ["--proxy.shutdown-grace=" + secretish] }, "proxy.shutdown_grace"],
    [
      "duration without unit",
      { env: env({ SVC_PROXY_SHUTDOWN_GRACE: "5" }) },
      "proxy.shutdown_grace",
    ],
    ["choice", { args: ["--log.level=" + secretish] }, "log.level"],
    ["file: string for int", { file: file(`bucket: b\nport: ${secretish}\n`) }, "port"],
    ["file: int for string", { file: file("bucket: 12345678\n") }, "bucket"],
    ["file: yes is not a bool", { file: file("bucket: b\nenabled: yes\n") }, "enabled"],
    ["file: map for a value", { file: file(`bucket: {a: ${secretish}}\n`) }, "bucket"],
    [
      "file: list of maps",
      { file: file(`bucket: b\nprofiles: [{a: ${secretish}}]\n`) },
      "profiles",
    ],
    ["file: empty value", { file: file("bucket:\n") }, "bucket"],
    ["secret validate quoting the value", {
      ...base,
      env: env({ SVC_DSN: `postgres://u:${secretish}@h/db` }),
    }, "dsn"],
    ["required missing", {}, "bucket"],
    ["unknown flag", { args: ["--nope=" + secretish] }, "--nope"],
    ["flag without value", { args: ["--port"] }, "--port"],
  ];
  for (const [label, input, key] of cases) {
    await t.step(label, () => {
      assert.throws(() => settings.resolve(input), (e: Error) => {
        assert.ok(e instanceof SettingsError, String(e));
        assert.equal(e.key, key, e.message);
        assert.ok(e.message.includes(key), e.message);
        assert.ok(!e.message.includes(secretish), `message echoes the value: ${e.message}`);
        assert.ok(!e.message.includes("12345678"), e.message);
        return true;
      });
    });
  }
  await t.step("bounds are inclusive", () => {
    assert.equal(settings.resolve({ args: [...base.args, "--port=1"] }).values.port, 1);
    assert.equal(settings.resolve({ args: [...base.args, "--port=65535"] }).values.port, 65535);
  });
  await t.step("a required setting names every way to set it", () => {
    assert.throws(() => settings.resolve({}), /--bucket or environment variable SVC_BUCKET or key/);
  });
});

Deno.test("defineSettings() refuses inconsistent tables", async (t) => {
  const bad: [string, Parameters<typeof defineSettings>[0]["settings"]][] = [
    ["bad key", { "Proxy.Grace": { type: "int", default: 1, help: "" } }],
    ["key is also a section", {
      "metrics": { type: "string", default: "", help: "" },
      "metrics.endpoint": { type: "string", default: "", help: "" },
    }],
    ["flag used twice", {
      "a": { type: "int", default: 1, flag: "x", help: "" },
      "b": { type: "int", default: 1, flag: "x", help: "" },
    }],
    ["variable used twice", {
      "a": { type: "int", default: 1, env: "X", help: "" },
      "b": { type: "int", default: 1, env: "X", help: "" },
    }],
    ["default out of bounds", { "a": { type: "int", default: 0, min: 1, help: "" } }],
    ["default not a choice", { "a": { type: "string", default: "z", choices: ["y"], help: "" } }],
  ];
  for (const [label, table] of bad) {
    await t.step(label, () => {
      assert.throws(() => defineSettings({ prefix: "P", settings: table }), TypeError);
    });
  }
});

Deno.test("defineSettings() refuses unsupported settings with their reason", async (t) => {
  const table = defineSettings({
    prefix: "SVC",
    settings: { "read_timeout": { type: "duration", default: 5_000, help: "body read limit" } },
    unsupported: { "idle_timeout": "the runtime offers no keep-alive idle timeout" },
  });
  for (const input of [{ args: ["--idle-timeout=1s"] }, { env: env({ SVC_IDLE_TIMEOUT: "1s" }) }]) {
    await t.step(JSON.stringify(input), () => {
      assert.throws(() => table.resolve(input), (e: Error) => {
        assert.ok(e instanceof SettingsError);
        assert.equal(e.key, "idle_timeout");
        assert.match(e.message, /is not supported: the runtime offers no keep-alive idle timeout/);
        return true;
      });
    });
  }
  await t.step("help lists them apart, with the reason", () => {
    assert.match(
      table.help(),
      /Not supported \(refused when set\):\n {2}--idle-timeout\n {6}the runtime offers no keep-alive idle timeout\n {6}env SVC_IDLE_TIMEOUT$/,
    );
  });
  await t.step("a key both defined and unsupported is a table error", () => {
    assert.throws(
      () =>
        defineSettings({
          settings: { "a": { type: "int", default: 1, help: "" } },
          unsupported: { "a": "no" },
        }),
      TypeError,
    );
  });
});

Deno.test("a string setting's normalize maps raw values before choices are checked", () => {
  const settings = defineSettings({
    prefix: "SVC",
    settings: {
      level: {
        type: "string",
        default: "info",
        choices: ["info", "debug"],
        normalize: (v) => v.toLowerCase(),
        help: "level",
      },
    },
  });
  assert.equal(
    settings.resolve({ args: ["--level", "DEBUG"], env: () => undefined }).values.level,
    "debug",
  );
  assert.equal(
    settings.resolve({ args: [], env: (n) => n === "SVC_LEVEL" ? "Info" : undefined }).values.level,
    "info",
  );
  assert.throws(
    () => settings.resolve({ args: ["--level", "LOUD"], env: () => undefined }),
    /expected one of info, debug/,
  );
});

Deno.test("defineSettings() accumulates a repeated list flag and refuses a repeated scalar", async (t) => {
  await t.step("a list flag given twice keeps both values, in order", () => {
    const args = [...base.args, "--origins", "http://b", "--origins=http://c,http://d"];
    assert.deepEqual(settings.resolve({ args }).values.origins, [
      "http://b",
      "http://c",
      "http://d",
    ]);
  });
  await t.step("a list flag given once keeps its one value", () => {
    const args = [...base.args, "--origins", "http://b"];
    assert.deepEqual(settings.resolve({ args }).values.origins, ["http://b"]);
  });
  const repeated: [string, string[]][] = [
    ["int", ["--port=1", "--port", "2"]],
    ["string with _ and - spellings", ["--log.level=info", "--log.level", "debug"]],
    ["bool", ["--enabled", "--enabled=false"]],
    ["duration", ["--proxy.shutdown-grace=1s", "--proxy.shutdown_grace=2s"]],
  ];
  for (const [label, extra] of repeated) {
    await t.step(`a scalar flag given twice is refused naming the flag: ${label}`, () => {
      assert.throws(() => settings.resolve({ args: [...base.args, ...extra] }), (e: Error) => {
        assert.ok(e instanceof SettingsError);
        assert.match(e.message, /^Cannot parse flags: flag "--[a-z.-]+" is given more than once/);
        assert.equal(e.key, `--${extra[0].replace(/^--/, "").split("=")[0].replaceAll("_", "-")}`);
        return true;
      });
    });
  }
  await t.step("the same flag after `--` is a positional, not a repeat", () => {
    const args = [...base.args, "--port=1", "--", "--port=2"];
    assert.deepEqual(settings.resolve({ args }).positionals, ["--port=2"]);
  });
});

Deno.test("names() gives a key's flag and variables, the way an operator sets it", () => {
  const table = defineSettings({
    prefix: "SVC",
    settings: {
      "addr": { type: "string", default: ":8080", help: "listen" },
      "server_port": { type: "int", default: 0, env: ["SVC_PORT", "PORT"], help: "port" },
      "file_only": { type: "string", default: "", flag: false, env: false, help: "file" },
    },
  });
  assert.equal(table.names("addr"), "--addr / SVC_ADDR");
  assert.equal(table.names("server_port"), "--server-port / SVC_PORT / PORT");
  assert.equal(table.names("file_only"), "key file_only");
  assert.throws(() => table.names("nope"), TypeError);
});

Deno.test("int64 settings carry values beyond 2^53 exactly, within [-2^63, 2^63-1]", async (t) => {
  const table = defineSettings({
    prefix: "SVC",
    configFile: { flag: "config" },
    settings: {
      "id": { type: "int64", min: 1n, help: "an id the spec types int64, > 0" },
      "signed": { type: "int64", default: 0n, help: "any int64" },
    },
  });
  const fromFlag = (v: string) => table.resolve({ args: [`--id=${v}`] }).values.id;
  const fromEnv = (v: string) =>
    table.resolve({ env: (n) => n === "SVC_SIGNED" ? v : undefined }).values.signed;
  const fromFile = (v: string) =>
    table.resolve({ file: { path: "c.yaml", text: `id: ${v}\n` } }).values.id;
  const accepted: [string, bigint][] = [
    ["1", 1n],
    ["9007199254740991", 2n ** 53n - 1n],
    ["9007199254740992", 2n ** 53n],
    ["9007199254740993", 2n ** 53n + 1n],
    ["9223372036854775807", 2n ** 63n - 1n],
  ];
  await t.step("accepted from flag, variable and file, exactly", () => {
    for (const [text, value] of accepted) {
      assert.equal(fromFlag(text), value, text);
      assert.equal(fromFile(text), value, text);
      assert.equal(fromEnv(text), value, text);
    }
    assert.equal(fromEnv("-9223372036854775808"), -(2n ** 63n));
    assert.equal(fromEnv("-9007199254740993"), -(2n ** 53n) - 1n);
    const d: bigint = table.resolve({ args: ["--id=5"] }).values.signed;
    assert.equal(d, 0n);
  });
  await t.step("refused, naming the bound or the expected form, never the value", () => {
    const cases: [() => unknown, RegExp][] = [
      [
        () => fromFlag("9223372036854775808"),
        /from flag --id: must be at most 9223372036854775807$/,
      ],
      [() => fromFile("9223372036854775808"), /c\.yaml: must be at most 9223372036854775807$/],
      [() => fromEnv("-9223372036854775809"), /SVC_SIGNED: must be at least -9223372036854775808$/],
      [() => fromFlag("0"), /from flag --id: must be at least 1$/],
      [() => fromFlag("-1"), /from flag --id: must be at least 1$/],
      [() => fromFile("0"), /must be at least 1$/],
      [() => fromFlag("1e3"), /from flag --id: expected an integer$/],
      [() => fromFlag("0x10"), /from flag --id: expected an integer$/],
      [() => fromFlag("12.0"), /from flag --id: expected an integer$/],
      [() => fromFile('"12"'), /expected an integer, got a string$/],
      [() => fromFile("1.5"), /expected an integer, got a number$/],
    ];
    for (const [run, message] of cases) {
      assert.throws(run, (e: Error) => e instanceof SettingsError && message.test(e.message));
    }
  });
});
