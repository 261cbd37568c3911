import assert from "node:assert/strict";
import { resolveSettings, SettingsError, settingsHelp, type SettingSpec } from "../settings.ts";

const table: SettingSpec[] = [
  { name: "addr", type: "string", default: "", env: "SVC_ADDR", help: "listen address" },
  {
    name: "port",
    type: "int",
    default: 8080,
    env: ["SVC_PORT", "PORT"],
    min: 1,
    max: 65535,
    help: "p",
  },
  { name: "ratio", type: "float", default: 1.5, help: "r" },
  { name: "enabled", type: "bool", default: true, env: "SVC_ENABLED", help: "e" },
  { name: "timeout", type: "duration", default: 5000, env: "SVC_TIMEOUT", help: "t" },
  { name: "origins", type: "list", default: [], env: "SVC_ORIGINS", help: "o" },
  { name: "level", type: "string", default: "info", choices: ["debug", "info"], help: "l" },
  {
    name: "token",
    type: "string",
    default: "",
    env: "SVC_TOKEN",
    secret: true,
    help: "s",
    validate: (v) => (v as string).length > 64 ? "too long" : undefined,
  },
];

function env(vars: Record<string, string>) {
  return (name: string) => vars[name];
}

Deno.test("resolveSettings() applies flag > env > file > default", async (t) => {
  await t.step("defaults when nothing is set", () => {
    const r = resolveSettings(table, {});
    assert.equal(r.values.port, 8080);
    assert.equal(r.sources.port, "default");
    assert.deepEqual(r.values.origins, []);
  });
  await t.step("file beats default", () => {
    const r = resolveSettings(table, { file: { port: 81 } });
    assert.equal(r.values.port, 81);
    assert.equal(r.sources.port, "file");
  });
  await t.step("env beats file, first env name wins", () => {
    const r = resolveSettings(table, {
      env: env({ PORT: "82", SVC_PORT: "83" }),
      file: { port: 81 },
    });
    assert.equal(r.values.port, 83);
    assert.equal(r.sources.port, "env");
    assert.equal(resolveSettings(table, { env: env({ PORT: "82" }) }).values.port, 82);
  });
  await t.step("flag beats env", () => {
    const r = resolveSettings(table, { args: ["--port", "84"], env: env({ SVC_PORT: "83" }) });
    assert.equal(r.values.port, 84);
    assert.equal(r.sources.port, "flag");
  });
});

Deno.test("resolveSettings() parses each type", async (t) => {
  await t.step("flag forms", () => {
    const r = resolveSettings(table, {
      args: ["serve", "--addr=:1", "-port", "2", "--enabled", "x"],
    });
    assert.equal(r.values.addr, ":1");
    assert.equal(r.values.port, 2);
    assert.equal(r.values.enabled, true);
    assert.deepEqual(r.positionals, ["serve", "x"]);
  });
  await t.step("booleans take true and false", () => {
    assert.equal(resolveSettings(table, { args: ["--enabled=false"] }).values.enabled, false);
    assert.equal(
      resolveSettings(table, { env: env({ SVC_ENABLED: "true" }) }).values.enabled,
      true,
    );
  });
  await t.step("durations are Go durations in ms", () => {
    assert.equal(resolveSettings(table, { args: ["--timeout=1m30s"] }).values.timeout, 90_000);
    assert.equal(resolveSettings(table, { file: { timeout: "0" } }).values.timeout, 0);
  });
  await t.step("lists are comma separated and trimmed", () => {
    const r = resolveSettings(table, { env: env({ SVC_ORIGINS: "http://a, http://b,," }) });
    assert.deepEqual(r.values.origins, ["http://a", "http://b"]);
  });
  await t.step("floats", () => {
    assert.equal(resolveSettings(table, { args: ["--ratio=0.25"] }).values.ratio, 0.25);
  });
  await t.step("everything after -- is positional", () => {
    assert.deepEqual(resolveSettings(table, { args: ["--", "--port"] }).positionals, ["--port"]);
  });
});

Deno.test("resolveSettings() rejects bad values without echoing them", async (t) => {
  const cases: [string, Parameters<typeof resolveSettings>[1], string][] = [
    ["bool", { args: ["--enabled=yes-sir"] }, "enabled"],
    ["int", { env: env({ SVC_PORT: "80a" }) }, "port"],
    ["int below min", { args: ["--port=0"] }, "port"],
    ["int above max", { args: ["--port=65536"] }, "port"],
    ["float", { args: ["--ratio=abc1"] }, "ratio"],
    ["duration", { args: ["--timeout=5 parsecs"] }, "timeout"],
    ["duration without unit", { env: env({ SVC_TIMEOUT: "5" }) }, "timeout"],
    ["choice", { args: ["--level=verbose"] }, "level"],
    ["validate", { env: env({ SVC_TOKEN: "s3cr3t".repeat(20) }) }, "token"],
    ["unknown flag", { args: ["--nope=1"] }, "--nope"],
    ["missing value", { args: ["--port"] }, "--port"],
  ];
  for (const [label, input, setting] of cases) {
    await t.step(label, () => {
      assert.throws(() => resolveSettings(table, input), (e: Error) => {
        assert.ok(e instanceof SettingsError);
        assert.equal(e.key, setting);
        assert.match(e.message, new RegExp(setting));
        for (const bad of ["yes-sir", "80a", "abc1", "parsecs", "verbose", "s3cr3t"]) {
          assert.ok(!e.message.includes(bad), `message echoes the value: ${e.message}`);
        }
        return true;
      });
    });
  }
  await t.step("bounds are inclusive", () => {
    assert.equal(resolveSettings(table, { args: ["--port=1"] }).values.port, 1);
    assert.equal(resolveSettings(table, { args: ["--port=65535"] }).values.port, 65535);
  });
});

Deno.test("settingsHelp() lists flags and env vars and hides secret defaults", () => {
  const help = settingsHelp(table);
  assert.match(help, /--port int/);
  assert.match(help, /env SVC_PORT, PORT/);
  assert.match(help, /--timeout duration\n {6}t \(default 5s\)/);
  assert.doesNotMatch(help.split("--token")[1], /default/);
});
