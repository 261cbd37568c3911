import assert from "node:assert/strict";
import { defineSettings, loadSettingsFileDecoder, SettingsError } from "./mod.ts";

await loadSettingsFileDecoder();

const settings = defineSettings({
  prefix: "RUNNER_CTL",
  configFile: { flag: "config" },
  settings: {
    "github.config_url": { type: "string", default: "", help: "URL" },
    "github.app.client_id": { type: "string", default: "", help: "app id" },
    "github.token": { type: "string", secret: true, flag: false, help: "token, env only" },
    "incus.profiles": { type: "list", default: [], flag: false, env: false, help: "profiles" },
    "timeouts.shutdown": { type: "duration", default: 30_000, help: "shutdown" },
    "reconcile_interval": { type: "duration", default: 1_000, help: "interval" },
  },
});
const SECRET = "Pa55-w0rd-xyz";
const decode = (text: string) => settings.resolve({ file: { path: "c.yaml", text } }).values;

Deno.test("YAML file: nested maps and dotted keys address the same setting", () => {
  const nested = decode("github:\n  app:\n    client_id: abc\ntimeouts: {shutdown: 1m}\n");
  const dotted = decode("github.app.client_id: abc\ntimeouts.shutdown: 1m\n");
  const mixed = decode("github:\n  app.client_id: abc\ntimeouts:\n  shutdown: 1m\n");
  for (const v of [nested, dotted, mixed]) {
    assert.equal(v["github.app.client_id"], "abc");
    assert.equal(v["timeouts.shutdown"], 60_000);
  }
});

Deno.test("YAML file: empty files, comments and empty sections set nothing", () => {
  for (const text of ["", "# nothing\n", "---\n", "github:\n", "github: ~\ntimeouts:\n"]) {
    assert.equal(decode(text)["timeouts.shutdown"], 30_000, JSON.stringify(text));
  }
  assert.equal(decode("reconcile_interval: !!str 3s\n").reconcile_interval, 3_000);
});

Deno.test("YAML file: strict rejections name the key, never the value", async (t) => {
  const cases: [string, string, string, RegExp][] = [
    ["unknown key", `github:\n  tokn: ${SECRET}\n`, "github.tokn", /not a known setting/],
    ["unknown top-level key", `nope: ${SECRET}\n`, "nope", /not a known setting/],
    [
      "duplicate key",
      `reconcile_interval: 1s\nreconcile_interval: 2s\n`,
      "reconcile_interval",
      /more than once/,
    ],
    [
      "duplicate section",
      "github:\n  config_url: a\ngithub:\n  app: {}\n",
      "github",
      /more than once/,
    ],
    [
      "duplicate across spellings",
      "timeouts.shutdown: 1s\ntimeouts:\n  shutdown: 2s\n",
      "timeouts.shutdown",
      /more than once/,
    ],
    ["wrong scalar type", `timeouts:\n  shutdown: true\n`, "timeouts.shutdown", /Go duration/],
    ["wrong container type (value for section)", `github: ${SECRET}\n`, "github", /map/],
    [
      "wrong container type (map for value)",
      `reconcile_interval: {a: 1}\n`,
      "reconcile_interval",
      /got a map/,
    ],
    [
      "wrong container type (scalar for list)",
      `incus:\n  profiles: ${SECRET}\n`,
      "incus.profiles",
      /list/,
    ],
    [
      "alias",
      `reconcile_interval: &x 1s\ntimeouts:\n  shutdown: *x\n`,
      "timeouts.shutdown",
      /alias/,
    ],
    [
      "alias of a known value",
      `github:\n  config_url: &x ${SECRET}\n  app:\n    client_id: *x\n`,
      "github.app.client_id",
      /alias/,
    ],
    ["alias of a section", `github: &g\n  config_url: u\nincus: *g\n`, "incus", /alias/],
    ["alias inside a list", `incus:\n  profiles: [&p ${SECRET}, *p]\n`, "incus.profiles", /alias/],
    [
      "merge key",
      `github:\n  <<: {config_url: ${SECRET}}\n`,
      "github",
      /merge key/,
    ],
    ["secret in file", `github:\n  token: ${SECRET}\n`, "github.token", /secret/],
    [
      "multiple documents",
      `reconcile_interval: 1s\n---\nreconcile_interval: 2s\n`,
      "config",
      /multiple/,
    ],
    ["syntax error", `github:\n  config_url: "${SECRET}\n`, "config", /line \d+, column \d+/],
    ["non-core tag", `reconcile_interval: !!binary ${SECRET}\n`, "reconcile_interval", /tag/],
    ["unknown tag", `reconcile_interval: !secret ${SECRET}\n`, "config", /invalid YAML/],
    ["top level not a map", `- ${SECRET}\n`, "config", /map/],
    ["non-string key", `github:\n  1: x\n`, "github", /not a non-empty string/],
  ];
  for (const [label, text, key, why] of cases) {
    await t.step(label, () => {
      assert.throws(() => decode(text), (e: Error) => {
        assert.ok(e instanceof SettingsError, String(e));
        assert.equal(e.key, key, e.message);
        assert.match(e.message, why);
        assert.ok(e.message.includes("c.yaml"), e.message);
        assert.ok(!e.message.includes(SECRET), `message echoes the value: ${e.message}`);
        return true;
      });
    });
  }
});

Deno.test("load() reads the file named by flag, then variable, then default path", async (t) => {
  const files: Record<string, string> = {
    "/flag.yaml": "reconcile_interval: 2s\n",
    "/env.yaml": "reconcile_interval: 3s\n",
    "/etc/default.yaml": "reconcile_interval: 4s\n",
  };
  const readTextFile = (path: string) =>
    path in files
      ? Promise.resolve(files[path])
      : Promise.reject(new Deno.errors.NotFound(`no ${path}`));
  const withDefault = defineSettings({
    prefix: "RUNNER_CTL",
    configFile: { flag: "config", defaultPath: "/etc/default.yaml" },
    settings: { "reconcile_interval": { type: "duration", default: 1_000, help: "i" } },
  });
  const env = (name: string) => name === "RUNNER_CTL_CONFIG" ? "/env.yaml" : undefined;
  await t.step("flag", async () => {
    const r = await withDefault.load({ args: ["--config", "/flag.yaml"], env, readTextFile });
    assert.equal(r.values.reconcile_interval, 2_000);
    assert.equal(r.configFile, "/flag.yaml");
  });
  await t.step("variable", async () => {
    const r = await withDefault.load({ env, readTextFile });
    assert.equal(r.values.reconcile_interval, 3_000);
  });
  await t.step("default path", async () => {
    const r = await withDefault.load({ readTextFile });
    assert.equal(r.values.reconcile_interval, 4_000);
  });
  await t.step("a missing default file is no error", async () => {
    const r = await withDefault.load({ readTextFile: () => readTextFile("/missing") });
    assert.equal(r.values.reconcile_interval, 1_000);
    assert.equal(r.configFile, undefined);
  });
  await t.step("an explicit file must exist", async () => {
    await assert.rejects(
      () => withDefault.load({ args: ["--config=/missing.yaml"], readTextFile }),
      (e: Error) => e instanceof SettingsError && e.key === "config" && /NotFound/.test(e.message),
    );
  });
  await t.step("reads a real file by default", async () => {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/c.yaml`, "reconcile_interval: 5s\n");
      const r = await withDefault.load({ args: [`--config=${dir}/c.yaml`] });
      assert.equal(r.values.reconcile_interval, 5_000);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("YAML file: a service needs only read access, no environment grant", async () => {
  // The `yaml` package reads LOG_TOKENS and LOG_STREAM while parsing (debug printing); the kit
  // parses with an empty process.env, so no grant, no NotCapable and no token dump, even when
  // both are set.
  const dir = await Deno.makeTempDir();
  try {
    const config = `${dir}/c.yaml`;
    await Deno.writeTextFile(config, "proxy:\n  max_streams: 9\n");
    const script = new URL("./testdata/settings_yaml_cli.ts", import.meta.url).pathname;
    const run = (flags: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          ...flags,
          `--allow-read=${config}`,
          script,
          "--config",
          config,
        ],
        env: { LOG_TOKENS: "1", LOG_STREAM: "1", NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
    for (const flags of [[], ["--allow-env=DEMO_*"]]) {
      const ok = await run(flags);
      assert.equal(ok.code, 0, new TextDecoder().decode(ok.stderr));
      assert.equal(new TextDecoder().decode(ok.stdout), "9\n"); // and no token dump
      assert.equal(new TextDecoder().decode(ok.stderr), "");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
