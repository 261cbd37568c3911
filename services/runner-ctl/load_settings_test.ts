import assert from "node:assert/strict";
import { SettingsError } from "@svc/shared/settings";
import { generateKeyPairSync } from "node:crypto";
import { loadSettings } from "./load_settings.ts";
import { DEFAULT_CONFIG_PATH } from "./settings.ts";

const BASE_YAML = `
github:
  config_url: https://github.com/acme/app
  scale_set: linux-x64
incus:
  project: runners
  image: runner-img
  owner: host-a
`;
const TOKEN = "ghp_SECRETVALUE_0123456789";

function files(map: Record<string, string>) {
  return (path: string) => {
    if (path in map) return Promise.resolve(map[path]);
    return Promise.reject(new Deno.errors.NotFound("no such file"));
  };
}

function load(
  o: {
    yaml?: string;
    args?: string[];
    env?: Record<string, string>;
    extra?: Record<string, string>;
  },
) {
  const env = { RUNNER_CTL_GITHUB_TOKEN: TOKEN, ...o.env };
  return loadSettings({
    args: ["--config", "/c.yaml", ...(o.args ?? [])],
    env: (k) => env[k as keyof typeof env],
    readTextFile: files({ "/c.yaml": o.yaml ?? BASE_YAML, ...o.extra }),
  });
}

async function rejects(
  p: Promise<unknown>,
  key: string,
  pattern: RegExp,
  secrets: string[] = [],
) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof SettingsError, String(err));
    assert.equal(err.key, key, err.message);
    assert.match(err.message, pattern);
    for (const s of secrets) assert.ok(!err.message.includes(s), `value leaked: ${err.message}`);
    return true;
  });
}

Deno.test("defaults of every key", async () => {
  const c = await load({});
  assert.deepEqual(c.values, {
    "github.config_url": "https://github.com/acme/app",
    "github.scale_set": "linux-x64",
    "github.runner_group": "default",
    "github.message_poll_timeout": 0,
    "github.token_file": undefined,
    "github.token": TOKEN,
    "github.app.client_id": undefined,
    "github.app.installation_id": undefined,
    "github.app.private_key_file": undefined,
    "incus.socket": "",
    "incus.project": "runners",
    "incus.image": "runner-img",
    "incus.profiles": [],
    "incus.owner": "host-a",
    "incus.bootstrap_timeout": 300_000,
    "incus.image_refresh_interval": 300_000,
    "incus.diagnostics_dir": "",
    "job_proof.host_id": "",
    "job_proof.signing_key_file": "",
    "capacity.min_runners": 0,
    "capacity.max_runners": 1,
    "concurrency.incus_operations": 2,
    "timeouts.incus_operation": 300_000,
    "timeouts.shutdown": 30_000,
    "retry.initial": 1000,
    "retry.maximum": 30_000,
    "reconcile_interval": 1000,
  });
  assert.deepEqual(c.credentials, { kind: "token", token: TOKEN });
  assert.equal(c.configUrl.scope, "repo");
});

// key, YAML text, env value, expected typed value
const SCALARS: [string, string, string, unknown][] = [
  ["github.runner_group", "default", "default", "default"],
  ["github.message_poll_timeout", "5s", "1m", [5000, 60_000]],
  ["incus.socket", "/run/incus.sock", "/x.sock", ["/run/incus.sock", "/x.sock"]],
  ["incus.project", "p1", "p2", ["p1", "p2"]],
  ["incus.image", "img1", "img2", ["img1", "img2"]],
  ["incus.owner", "o1", "o2", ["o1", "o2"]],
  ["incus.bootstrap_timeout", "90s", "2m", [90_000, 120_000]],
  ["incus.image_refresh_interval", "1ms", "10m", [1, 600_000]],
  ["incus.diagnostics_dir", "/var/log/d", "/d2", ["/var/log/d", "/d2"]],
  ["capacity.min_runners", "0", "1", [0, 1]],
  ["capacity.max_runners", "3", "4", [3, 4]],
  ["concurrency.incus_operations", "3", "5", [3, 5]],
  ["timeouts.incus_operation", "1m", "2m", [60_000, 120_000]],
  ["timeouts.shutdown", "10s", "20s", [10_000, 20_000]],
  ["retry.initial", "2s", "3s", [2000, 3000]],
  ["retry.maximum", "40s", "50s", [40_000, 50_000]],
  ["reconcile_interval", "2s", "500ms", [2000, 500]],
];

function envName(key: string) {
  return "RUNNER_CTL_" + key.toUpperCase().replace(/[._]/g, "_");
}

function withKey(key: string, yamlValue: string) {
  // Dotted keys are accepted by the file decoder beside the nested base; a key the base sets
  // is replaced there (setting it twice is a duplicate).
  const short = key.split(".").at(-1)!;
  const replaced = BASE_YAML.replace(new RegExp(`^(  ${short}: ).*$`, "m"), `$1${yamlValue}`);
  return replaced !== BASE_YAML && key.startsWith("incus.")
    ? replaced
    : BASE_YAML + `${key}: ${yamlValue}\n`;
}

Deno.test("every scalar key from YAML and from its RUNNER_CTL_ variable", async (t) => {
  for (const [key, yamlValue, envValue, expected] of SCALARS) {
    const [fromYaml, fromEnv] = Array.isArray(expected) ? expected : [expected, expected];
    await t.step(key, async () => {
      const y = await load({ yaml: withKey(key, yamlValue) });
      assert.equal(y.values[key as keyof typeof y.values], fromYaml);
      const e = await load({ yaml: withKey(key, yamlValue), env: { [envName(key)]: envValue } });
      assert.equal(e.values[key as keyof typeof e.values], fromEnv, "env beats YAML");
    });
  }
  await t.step("github.config_url, scale_set via env", async () => {
    const c = await load({
      env: {
        RUNNER_CTL_GITHUB_CONFIG_URL: "https://github.com/other/repo",
        RUNNER_CTL_GITHUB_SCALE_SET: "gpu",
      },
    });
    assert.equal(c.values["github.config_url"], "https://github.com/other/repo");
    assert.equal(c.values["github.scale_set"], "gpu");
  });
  await t.step("incus.profiles is YAML-only", async () => {
    const c = await load({ yaml: BASE_YAML + "incus.profiles: [default, big]\n" });
    assert.deepEqual(c.values["incus.profiles"], ["default", "big"]);
    const e = await load({ env: { RUNNER_CTL_INCUS_PROFILES: "x" } });
    assert.deepEqual(e.values["incus.profiles"], [], "no variable binds the list");
    await assert.rejects(load({ args: ["--incus.profiles", "x"] }), /unknown flag/);
  });
});

Deno.test("the seven flags override env and YAML", async (t) => {
  const FLAGS: [string, string, string, unknown][] = [
    ["--min-runners", "capacity.min_runners", "2", 2],
    ["--max-runners", "capacity.max_runners", "9", 9],
    ["--incus-operations", "concurrency.incus_operations", "4", 4],
    ["--reconcile-interval", "reconcile_interval", "250ms", 250],
    ["--operation-timeout", "timeouts.incus_operation", "45s", 45_000],
    ["--shutdown-timeout", "timeouts.shutdown", "5s", 5000],
  ];
  for (const [flag, key, value, expected] of FLAGS) {
    await t.step(flag, async () => {
      const c = await load({
        yaml: withKey(key, key.includes("runners") || key.includes("operations") ? "3" : "7s"),
        env: { [envName(key)]: key.includes("runners") || key.includes("operations") ? "3" : "8s" },
        args: [flag, value, ...(flag === "--min-runners" ? ["--max-runners", "9"] : [])],
      });
      assert.equal(c.values[key as keyof typeof c.values], expected);
    });
  }
  await t.step("--config names the file; other keys have no flag", async () => {
    await assert.rejects(load({ args: ["--incus.owner", "x"] }), /unknown flag/);
    await assert.rejects(load({ args: ["--scale-set", "x"] }), /unknown flag/);
  });
});

Deno.test("configuration file location", async (t) => {
  await t.step("the default path is optional", async () => {
    const env: Record<string, string> = {
      RUNNER_CTL_GITHUB_TOKEN: TOKEN,
      RUNNER_CTL_GITHUB_CONFIG_URL: "https://github.com/acme/app",
      RUNNER_CTL_GITHUB_SCALE_SET: "s",
      RUNNER_CTL_INCUS_PROJECT: "p",
      RUNNER_CTL_INCUS_IMAGE: "i",
      RUNNER_CTL_INCUS_OWNER: "o",
    };
    const c = await loadSettings({ args: [], env: (k) => env[k], readTextFile: files({}) });
    assert.equal(c.configFile, undefined);
    const d = await loadSettings({
      args: [],
      env: (k) => env[k],
      readTextFile: files({ [DEFAULT_CONFIG_PATH]: "incus:\n  owner: from-default\n" }),
    });
    assert.equal(d.configFile, DEFAULT_CONFIG_PATH);
    assert.equal(d.values["incus.owner"], "o", "env still beats the file");
  });
  await t.step("an explicit --config must exist", async () => {
    await rejects(
      loadSettings({
        args: ["--config", "/missing.yaml"],
        env: () => undefined,
        readTextFile: files({}),
      }),
      "config",
      /Cannot read configuration file \/missing.yaml/,
    );
  });
});

Deno.test("strict YAML rejections name the key, never the value", async (t) => {
  const cases: [string, string, string, RegExp][] = [
    ["unknown key", BASE_YAML + "incus.ownr: SECRETVALUE\n", "incus.ownr", /not a known setting/],
    [
      "duplicate key",
      BASE_YAML + "capacity:\n  max_runners: 2\n  max_runners: 3\n",
      "capacity.max_runners",
      /more than once/,
    ],
    [
      "wrong scalar type",
      BASE_YAML + "capacity.max_runners: SECRETVALUE\n",
      "capacity.max_runners",
      /expected an integer/,
    ],
    [
      "wrong container type",
      BASE_YAML + "incus.profiles: SECRETVALUE\n",
      "incus.profiles",
      /expected a list/,
    ],
    [
      "map where a value belongs",
      BASE_YAML + "incus.diagnostics_dir: {a: SECRETVALUE}\n",
      "incus.diagnostics_dir",
      /expected a string/,
    ],
    ["alias", BASE_YAML + "retry:\n  initial: &a 1s\n  maximum: *a\n", "retry.maximum", /alias/],
    ["merge key", BASE_YAML + "timeouts:\n  <<: {shutdown: 1s}\n", "timeouts", /merge key/],
    ["token in YAML", BASE_YAML + "github.token: SECRETVALUE\n", "github.token", /secret/],
  ];
  for (const [name, yaml, key, pattern] of cases) {
    await t.step(name, () => rejects(load({ yaml }), key, pattern, ["SECRETVALUE"]));
  }
  await t.step(
    "multiple documents",
    () =>
      rejects(
        load({ yaml: BASE_YAML + "---\nx: SECRETVALUE\n" }),
        "config",
        /multiple YAML documents/,
        [
          "SECRETVALUE",
        ],
      ),
  );
});

Deno.test("validation rules at, below and above their bounds", async (t) => {
  const bad: [string, Record<string, string>, string[], string, RegExp][] = [
    [
      "poll timeout 4.999s",
      { RUNNER_CTL_GITHUB_MESSAGE_POLL_TIMEOUT: "4999ms" },
      [],
      "github.message_poll_timeout",
      /0s or at least 5s/,
    ],
    [
      "poll timeout 1ns",
      { RUNNER_CTL_GITHUB_MESSAGE_POLL_TIMEOUT: "1ns" },
      [],
      "github.message_poll_timeout",
      /0s or at least 5s/,
    ],
    ["min_runners -1", {}, ["--min-runners", "-1"], "capacity.min_runners", /at least 0/],
    [
      "max < min",
      {},
      ["--min-runners", "3", "--max-runners", "2"],
      "capacity.max_runners",
      /at least capacity.min_runners/,
    ],
    [
      "incus_operations 0",
      {},
      ["--incus-operations", "0"],
      "concurrency.incus_operations",
      /at least 1/,
    ],
    [
      "operation timeout 0s",
      {},
      ["--operation-timeout", "0s"],
      "timeouts.incus_operation",
      /greater than 0/,
    ],
    ["shutdown -1s", {}, ["--shutdown-timeout=-1s"], "timeouts.shutdown", /greater than 0/],
    ["reconcile 0s", {}, ["--reconcile-interval", "0s"], "reconcile_interval", /greater than 0/],
    [
      "bootstrap 0s",
      { RUNNER_CTL_INCUS_BOOTSTRAP_TIMEOUT: "0s" },
      [],
      "incus.bootstrap_timeout",
      /greater than 0/,
    ],
    [
      "image refresh 0s",
      { RUNNER_CTL_INCUS_IMAGE_REFRESH_INTERVAL: "0s" },
      [],
      "incus.image_refresh_interval",
      /greater than 0/,
    ],
    ["retry.initial 0s", { RUNNER_CTL_RETRY_INITIAL: "0s" }, [], "retry.initial", /greater than 0/],
    [
      "retry.maximum < initial",
      { RUNNER_CTL_RETRY_INITIAL: "5s", RUNNER_CTL_RETRY_MAXIMUM: "4s" },
      [],
      "retry.maximum",
      /at least retry.initial/,
    ],
    [
      "bad duration",
      { RUNNER_CTL_TIMEOUTS_SHUTDOWN: "SECRETVALUE" },
      [],
      "timeouts.shutdown",
      /Go duration/,
    ],
    ["empty project", { RUNNER_CTL_INCUS_PROJECT: "" }, [], "incus.project", /must not be empty/],
    ["empty image", { RUNNER_CTL_INCUS_IMAGE: "" }, [], "incus.image", /must not be empty/],
    ["empty owner", { RUNNER_CTL_INCUS_OWNER: "" }, [], "incus.owner", /must not be empty/],
    [
      "scale set with %",
      { RUNNER_CTL_GITHUB_SCALE_SET: "SECRET%41" },
      [],
      "github.scale_set",
      /representable/,
    ],
    [
      "scale set with +",
      { RUNNER_CTL_GITHUB_SCALE_SET: "SECRET+x" },
      [],
      "github.scale_set",
      /representable/,
    ],
    [
      "scale set with control",
      { RUNNER_CTL_GITHUB_SCALE_SET: "SECRET\u0001" },
      [],
      "github.scale_set",
      /representable/,
    ],
    [
      "empty scale set",
      { RUNNER_CTL_GITHUB_SCALE_SET: "" },
      [],
      "github.scale_set",
      /must not be empty/,
    ],
    [
      "repo scope, named group",
      { RUNNER_CTL_GITHUB_RUNNER_GROUP: "SECRETgroup" },
      [],
      "github.runner_group",
      /must be default at repository scope/,
    ],
    [
      "org scope, default group",
      { RUNNER_CTL_GITHUB_CONFIG_URL: "https://github.com/acme" },
      [],
      "github.runner_group",
      /non-default runner group/,
    ],
    [
      "config URL http",
      { RUNNER_CTL_GITHUB_CONFIG_URL: "http://github.com/SECRET" },
      [],
      "github.config_url",
      /must use https/,
    ],
    [
      "config URL enterprise",
      { RUNNER_CTL_GITHUB_CONFIG_URL: "https://github.com/enterprises/SECRET" },
      [],
      "github.config_url",
      /enterprise/,
    ],
    [
      "proof host without key",
      { RUNNER_CTL_JOB_PROOF_HOST_ID: "SECRET" },
      [],
      "job_proof.signing_key_file",
      /required when job_proof.host_id/,
    ],
    [
      "proof key without host",
      { RUNNER_CTL_JOB_PROOF_SIGNING_KEY_FILE: "/SECRET" },
      [],
      "job_proof.host_id",
      /required when job_proof.signing_key_file/,
    ],
    [
      "installation id 0",
      { RUNNER_CTL_GITHUB_APP_INSTALLATION_ID: "0" },
      [],
      "github.app.installation_id",
      /at least 1/,
    ],
  ];
  for (const [name, env, args, key, pattern] of bad) {
    await t.step(name, () => rejects(load({ env, args }), key, pattern, ["SECRET"]));
  }
  await t.step("accepted at the bounds", async () => {
    const c = await load({
      env: {
        RUNNER_CTL_GITHUB_MESSAGE_POLL_TIMEOUT: "5s",
        RUNNER_CTL_RETRY_INITIAL: "5s",
        RUNNER_CTL_RETRY_MAXIMUM: "5s",
        RUNNER_CTL_GITHUB_CONFIG_URL: "https://github.com/acme",
        RUNNER_CTL_GITHUB_RUNNER_GROUP: "linux",
      },
      args: [
        "--min-runners",
        "2",
        "--max-runners",
        "2",
        "--incus-operations",
        "1",
        "--shutdown-timeout",
        "1ns",
      ],
    });
    assert.equal(c.values["github.message_poll_timeout"], 5000);
    assert.equal(c.values["capacity.max_runners"], 2);
    assert.equal(c.values["concurrency.incus_operations"], 1);
    assert.equal(c.configUrl.scope, "org");
  });
});

Deno.test("exactly one credential source", async (t) => {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const app = {
    RUNNER_CTL_GITHUB_APP_CLIENT_ID: "Iv1.x",
    RUNNER_CTL_GITHUB_APP_INSTALLATION_ID: "12",
    RUNNER_CTL_GITHUB_APP_PRIVATE_KEY_FILE: "/key.pem",
  };
  const noToken = { RUNNER_CTL_GITHUB_TOKEN: undefined as unknown as string };
  await t.step("app credentials", async () => {
    const c = await load({ env: { ...noToken, ...app }, extra: { "/key.pem": pem } });
    assert.equal(c.credentials.kind, "app");
  });
  await t.step("installation id: int64, carried exactly (2^53±1, 2^63-1)", async () => {
    for (const id of [2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, 1n]) {
      const fromEnv = await load({
        env: { ...noToken, ...app, RUNNER_CTL_GITHUB_APP_INSTALLATION_ID: String(id) },
        extra: { "/key.pem": pem },
      });
      assert.equal(fromEnv.credentials.kind === "app" && fromEnv.credentials.installationId, id);
      const fromYaml = await load({
        env: noToken,
        yaml: BASE_YAML + "github.app:\n  client_id: Iv1.x\n" +
          `  installation_id: ${id}\n  private_key_file: /key.pem\n`,
        extra: { "/key.pem": pem },
      });
      assert.equal(fromYaml.credentials.kind === "app" && fromYaml.credentials.installationId, id);
    }
  });
  await t.step("installation id: 2^63, 0 and negative are refused, naming the bound", async () => {
    const cases: [string, RegExp][] = [
      ["9223372036854775808", /must be at most 9223372036854775807/],
      ["18446744073709551616", /must be at most 9223372036854775807/],
      ["0", /must be at least 1/],
      ["-1", /must be at least 1/],
      ["-9223372036854775808", /must be at least 1/],
      ["0x10", /expected an integer/], // (YAML reads 0x10 as 16: variables only)
    ];
    for (const [text, pattern] of cases) {
      await rejects(
        load({
          env: { ...noToken, ...app, RUNNER_CTL_GITHUB_APP_INSTALLATION_ID: text },
          extra: { "/key.pem": pem },
        }),
        "github.app.installation_id",
        pattern,
        [],
      );
      if (text.startsWith("0x")) continue;
      await rejects(
        load({
          env: noToken,
          yaml: BASE_YAML + "github.app:\n  client_id: Iv1.x\n" +
            `  installation_id: ${text}\n  private_key_file: /key.pem\n`,
          extra: { "/key.pem": pem },
        }),
        "github.app.installation_id",
        pattern,
        [],
      );
    }
  });
  await t.step("app credentials from YAML (paths, not secrets)", async () => {
    const c = await load({
      env: noToken,
      yaml: BASE_YAML +
        "github.app:\n  client_id: Iv1.x\n  installation_id: 12\n  private_key_file: /key.pem\n",
      extra: { "/key.pem": pem },
    });
    assert.equal(c.credentials.kind, "app");
  });
  await t.step("token file, trimmed", async () => {
    const c = await load({
      env: { ...noToken, RUNNER_CTL_GITHUB_TOKEN_FILE: "/tok" },
      extra: { "/tok": `  ${TOKEN}\n` },
    });
    assert.deepEqual(c.credentials, { kind: "token", token: TOKEN });
  });
  await t.step("token variable, trimmed", async () => {
    const c = await load({ env: { RUNNER_CTL_GITHUB_TOKEN: ` ${TOKEN}\t\n` } });
    assert.deepEqual(c.credentials, { kind: "token", token: TOKEN });
  });
  const failures: [string, Record<string, string>, Record<string, string>, string, RegExp][] = [
    ["none", noToken, {}, "github", /no GitHub credential/],
    [
      "token file and token variable",
      { RUNNER_CTL_GITHUB_TOKEN_FILE: "/tok" },
      { "/tok": TOKEN },
      "github",
      /more than one/,
    ],
    ["app and token", app, { "/key.pem": pem }, "github", /more than one/],
    [
      "partial app",
      { ...noToken, RUNNER_CTL_GITHUB_APP_CLIENT_ID: "x" },
      {},
      "github.app.installation_id",
      /required when GitHub App/,
    ],
    [
      "missing token file",
      { ...noToken, RUNNER_CTL_GITHUB_TOKEN_FILE: "/none" },
      {},
      "github.token_file",
      /cannot be read/,
    ],
    [
      "empty token file",
      { ...noToken, RUNNER_CTL_GITHUB_TOKEN_FILE: "/tok" },
      { "/tok": " \n" },
      "github.token_file",
      /empty file/,
    ],
    ["empty token variable", { RUNNER_CTL_GITHUB_TOKEN: "  " }, {}, "github.token", /is empty/],
    [
      "bad key file",
      { ...noToken, ...app },
      { "/key.pem": "SECRET not a key" },
      "github.app.private_key_file",
      /RSA private key/,
    ],
  ];
  for (const [name, env, extra, key, pattern] of failures) {
    await t.step(name, () => rejects(load({ env, extra }), key, pattern, [TOKEN, "SECRET"]));
  }
});
