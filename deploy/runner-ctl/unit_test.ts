/**
 * The packaged systemd unit, drop-ins and tmpfiles policy carry every fact of
 * docs/runner-ctl.md#packaged-unit; `systemd-analyze verify` accepts the unit where it exists.
 */
import assert from "node:assert/strict";
import { loadSettings } from "../../services/runner-ctl/load_settings.ts";
import { SETTINGS } from "../../services/runner-ctl/settings.ts";
import { SERVICES } from "../services.ts";
import { execStart, parseUnit } from "./unit.ts";
import { skipSuite } from "@svc/testing";

const here = (name: string) => new URL(name, import.meta.url).pathname;
const read = async (name: string) => parseUnit(await Deno.readTextFile(here(name)));

Deno.test("runner-ctl.service", async (t) => {
  const unit = await read("runner-ctl.service");
  const get = (section: string, key: string) => unit.get(section)?.get(key);
  const expected: [string, string, string][] = [
    ["Service", "Type", "notify"],
    ["Service", "NotifyAccess", "main"],
    ["Service", "WatchdogSec", "60s"],
    ["Service", "TimeoutStartSec", "5min"],
    ["Service", "ExecStart", "/usr/local/bin/runner-ctl --config /etc/runner-ctl/config.yaml"],
    ["Service", "DynamicUser", "yes"],
    ["Service", "SupplementaryGroups", "incus-admin"],
    ["Service", "UMask", "0077"],
    ["Service", "Restart", "on-failure"],
    ["Service", "RestartSec", "5s"],
    ["Unit", "StartLimitIntervalSec", "60s"],
    ["Unit", "StartLimitBurst", "5"],
    ["Service", "KillSignal", "SIGTERM"],
    ["Service", "TimeoutStopSec", "70s"],
    ["Service", "ConfigurationDirectory", "runner-ctl"],
    ["Service", "ConfigurationDirectoryMode", "0755"],
    ["Service", "LogsDirectory", "runner-ctl"],
    ["Service", "LogsDirectoryMode", "0700"],
    ["Service", "NoNewPrivileges", "yes"],
    ["Service", "ProtectSystem", "strict"],
    ["Service", "ProtectHome", "yes"],
    ["Service", "PrivateTmp", "yes"],
    ["Service", "PrivateDevices", "yes"],
    ["Service", "ProtectKernelTunables", "yes"],
    ["Service", "ProtectKernelModules", "yes"],
    ["Service", "ProtectKernelLogs", "yes"],
    ["Service", "ProtectClock", "yes"],
    ["Service", "ProtectHostname", "yes"],
    ["Service", "ProtectControlGroups", "yes"],
    ["Service", "ProtectProc", "invisible"],
    ["Service", "RestrictNamespaces", "yes"],
    ["Service", "RestrictRealtime", "yes"],
    ["Service", "RestrictSUIDSGID", "yes"],
    ["Service", "LockPersonality", "yes"],
    ["Service", "MemoryDenyWriteExecute", "yes"],
    ["Service", "SystemCallArchitectures", "native"],
    ["Service", "CapabilityBoundingSet", ""],
    ["Service", "AmbientCapabilities", ""],
    ["Service", "RestrictAddressFamilies", "AF_UNIX AF_INET AF_INET6"],
  ];
  await t.step("sets each directive of the contract exactly once", () => {
    for (const [section, key, value] of expected) {
      assert.deepEqual(get(section, key), [value], `${section}.${key}`);
    }
  });
  await t.step("stop timeout exceeds twice the default shutdown timeout (30 s)", () => {
    assert.ok(parseInt(get("Service", "TimeoutStopSec")![0]) > 2 * 30);
  });
  await t.step("runs the binary with V8 jitless so MemoryDenyWriteExecute holds", () => {
    const svc = SERVICES.find((s) => s.name === "runner-ctl");
    assert.deepEqual(svc?.v8Flags, ["--jitless"]);
  });
  await t.step(
    "systemd-analyze verify reports no unknown or bad directive; security scores at most 3.0",
    async () => {
      const found = await new Deno.Command("systemd-analyze", {
        args: ["--version"],
        stdout: "null",
      })
        .output().then(() => true, () => false);
      const part = "systemd-analyze verify";
      if (
        skipSuite({ module: import.meta.url, part, needs: found ? undefined : "systemd-analyze" })
      ) {
        return;
      }
      const dir = await Deno.makeTempDir();
      try {
        // The binary is not installed here: point ExecStart at one that exists.
        const text = (await Deno.readTextFile(here("runner-ctl.service")))
          .replaceAll("/usr/local/bin/runner-ctl", "/bin/true");
        await Deno.writeTextFile(`${dir}/runner-ctl.service`, text);
        const out = await new Deno.Command("systemd-analyze", {
          args: ["verify", "--man=no", `${dir}/runner-ctl.service`],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
        assert.doesNotMatch(said, /runner-ctl\.service:\d+|Unknown|ignoring|Failed/i, said);
        assert.equal(out.code, 0, said);
        // The exposure score must not get worse than it was before Type=notify (3.0).
        const sec = await new Deno.Command("systemd-analyze", {
          args: ["security", "--offline=true", "--no-pager", `${dir}/runner-ctl.service`],
          stdout: "piped",
          stderr: "piped",
          env: { NO_COLOR: "1", SYSTEMD_COLORS: "0" },
        }).output();
        const report = new TextDecoder().decode(sec.stdout) + new TextDecoder().decode(sec.stderr);
        const score = /Overall exposure level for runner-ctl\.service: (\d+\.\d)/.exec(report);
        assert.ok(score, report);
        assert.ok(Number(score[1]) <= 3.0, `exposure ${score[1]}`);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  );
});

Deno.test("the unit's ExecStart, run with the deployed flags, reads the packaged config", async () => {
  // A real run: the flags `deno task compile` bakes in (permissions and V8 --jitless), the
  // ExecStart arguments with --config naming the packaged example, the token drop-in's variable.
  // Only incus.socket is added (a path where no Incus listens), so the controller gets past its
  // configuration and credentials and stops at its documented first contact with Incus.
  const svc = SERVICES.find((s) => s.name === "runner-ctl")!;
  const { binary, args } = execStart(await read("runner-ctl.service"));
  assert.equal(binary, "/usr/local/bin/runner-ctl");
  const dir = await Deno.makeTempDir({ prefix: "runner_ctl_unit_" });
  try {
    const example = await Deno.readTextFile(here("config.example.yaml"));
    assert.match(example, /^incus:$/m);
    const config = `${dir}/config.yaml`;
    await Deno.writeTextFile(
      config,
      example.replace(/^incus:$/m, `incus:\n  socket: ${dir}/no-incus.socket`),
    );
    await Deno.writeTextFile(`${dir}/github-token`, "ghp_example\n");
    const at = args.indexOf("--config");
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        ...svc.permissions,
        `--v8-flags=${svc.v8Flags!.join(",")}`,
        svc.entry,
        ...args.map((a, i) => i === at + 1 ? config : a),
      ],
      cwd: new URL("../../", import.meta.url).pathname,
      clearEnv: true,
      env: { RUNNER_CTL_GITHUB_TOKEN_FILE: `${dir}/github-token`, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(
      stderr,
      `runner-ctl: IncusError: Cannot reach Incus at its socket ${dir}/no-incus.socket: ` +
        "fetch failed (change incus.socket / RUNNER_CTL_INCUS_SOCKET, or start Incus)\n",
    );
    assert.equal(out.code, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("credential and proof-key drop-ins", async (t) => {
  const cases: [string, string, string, string][] = [
    [
      "credential-app.conf",
      "LoadCredential",
      "github-app-key",
      "RUNNER_CTL_GITHUB_APP_PRIVATE_KEY_FILE",
    ],
    ["credential-token.conf", "LoadCredential", "github-token", "RUNNER_CTL_GITHUB_TOKEN_FILE"],
    ["proof-key.conf", "LoadCredential", "job-proof-key", "RUNNER_CTL_JOB_PROOF_SIGNING_KEY_FILE"],
    [
      "proof-key-encrypted.conf",
      "LoadCredentialEncrypted",
      "job-proof-key",
      "RUNNER_CTL_JOB_PROOF_SIGNING_KEY_FILE",
    ],
  ];
  for (const [file, directive, name, variable] of cases) {
    await t.step(`${file} loads ${name} and points ${variable} at its runtime path`, async () => {
      const unit = await read(file);
      assert.deepEqual([...unit.keys()], ["Service"]);
      const service = unit.get("Service")!;
      assert.deepEqual([...service.keys()].sort(), ["Environment", directive].sort());
      const [load] = service.get(directive)!;
      assert.match(load, new RegExp(`^${name}:/etc/runner-ctl/credentials/[\\w.-]+$`));
      assert.deepEqual(service.get("Environment"), [`${variable}=%d/${name}`]);
    });
  }
  await t.step("each variable is one the controller reads", () => {
    const help = SETTINGS.help();
    for (const [, , , variable] of cases) assert.ok(help.includes(variable), variable);
  });
});

Deno.test("tmpfiles policy ages diagnostics out after 30 days (every instance's too)", async () => {
  const lines = (await Deno.readTextFile(here("runner-ctl.tmpfiles.conf"))).split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"));
  assert.deepEqual(lines.map((l) => l.trim().split(/\s+/)), [
    ["e", "/var/log/runner-ctl/diagnostics", "-", "-", "-", "30d"],
    ["e", "/var/log/runner-ctl/*/diagnostics", "-", "-", "-", "30d"],
  ]);
});

Deno.test("the example configuration loads and uses the packaged diagnostics directory", async () => {
  const settings = await loadSettings({
    args: ["--config", here("config.example.yaml")],
    env: (k) => (k === "RUNNER_CTL_GITHUB_TOKEN" ? "example-token" : undefined),
  });
  assert.equal(settings.values["incus.diagnostics_dir"], "/var/log/runner-ctl/diagnostics");
});

Deno.test("runner-ctl@.service: the single unit per instance", async (t) => {
  const single = await read("runner-ctl.service");
  const template = await read("runner-ctl@.service");
  const differs: Record<string, string> = {
    "Unit.Description":
      "runner-ctl (%i): ephemeral Incus VM runners for a GitHub Actions scale set",
    "Service.ExecStart": "/usr/local/bin/runner-ctl --config /etc/runner-ctl/%i.yaml",
    "Service.LogsDirectory": "runner-ctl/%i",
  };
  await t.step("config, logs (diagnostics) per instance; every other directive the same", () => {
    const flat = (u: typeof single) =>
      new Map(
        [...u].flatMap(([section, keys]) =>
          [...keys].map(([k, v]) => [`${section}.${k}`, v.join("\n")] as const)
        ),
      );
    const a = flat(single), b = flat(template);
    assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
    for (const [key, value] of b) {
      if (key in differs) assert.equal(value, differs[key], key);
      else assert.equal(value, a.get(key), `${key} as in runner-ctl.service`);
    }
  });
  await t.step("ExecStart with an instance name; a name that is not plain is refused", () => {
    assert.deepEqual(execStart(template, "linux-x64"), {
      binary: "/usr/local/bin/runner-ctl",
      args: ["--config", "/etc/runner-ctl/linux-x64.yaml"],
    });
    for (const bad of ["", "../x", "a b", "a/b", "%i"]) {
      assert.throws(() => execStart(template, bad), /plain instance name/, bad);
    }
    assert.throws(() => execStart(template), /syntax not handled/, "no instance: %i is left");
  });
  await t.step("systemd-analyze verify and security accept it", async () => {
    const found = await new Deno.Command("systemd-analyze", { args: ["--version"], stdout: "null" })
      .output().then(() => true, () => false);
    const part = "systemd-analyze verify (template)";
    if (
      skipSuite({ module: import.meta.url, part, needs: found ? undefined : "systemd-analyze" })
    ) {
      return;
    }
    const dir = await Deno.makeTempDir();
    try {
      const text = (await Deno.readTextFile(here("runner-ctl@.service")))
        .replaceAll("/usr/local/bin/runner-ctl", "/bin/true");
      await Deno.writeTextFile(`${dir}/runner-ctl@.service`, text);
      const run = async (args: string[]) => {
        const out = await new Deno.Command("systemd-analyze", {
          args,
          stdout: "piped",
          stderr: "piped",
          env: { NO_COLOR: "1", SYSTEMD_COLORS: "0" },
        }).output();
        return {
          code: out.code,
          said: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
        };
      };
      const v = await run(["verify", "--man=no", `${dir}/runner-ctl@.service`]);
      assert.doesNotMatch(v.said, /runner-ctl@\.service:\d+|Unknown|ignoring|Failed/i, v.said);
      assert.equal(v.code, 0, v.said);
      const s = await run([
        "security",
        "--offline=true",
        "--no-pager",
        `${dir}/runner-ctl@.service`,
      ]);
      const score = /Overall exposure level for [^:]+: (\d+\.\d)/.exec(s.said);
      assert.ok(score, s.said);
      assert.ok(Number(score[1]) <= 3.0, `exposure ${score[1]}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("per-instance drop-ins: the single unit's, with the files under credentials/<instance>/", async () => {
  for (
    const file of ["credential-app.conf", "credential-token.conf", "proof-key.conf"].concat(
      "proof-key-encrypted.conf",
    )
  ) {
    const single = (await read(file)).get("Service")!;
    const instance = (await read(`instance/${file}`)).get("Service")!;
    assert.deepEqual(instance.get("Environment"), single.get("Environment"), file);
    const directive = [...single.keys()].find((k) => k.startsWith("LoadCredential"))!;
    assert.deepEqual(
      instance.get(directive),
      single.get(directive)!.map((v) =>
        v.replace("/etc/runner-ctl/credentials/", "/etc/runner-ctl/credentials/%i/")
      ),
      file,
    );
  }
});

Deno.test("the instance example configuration loads, with its own owner and diagnostics directory", async () => {
  const settings = await loadSettings({
    args: ["--config", here("instance.example.yaml")],
    env: (k) => (k === "RUNNER_CTL_GITHUB_TOKEN" ? "example-token" : undefined),
  });
  const v = settings.values;
  assert.equal(
    v["incus.diagnostics_dir"],
    `/var/log/runner-ctl/${v["github.scale_set"]}/diagnostics`,
  );
  assert.equal(v["incus.owner"], `runner-ctl-${v["github.scale_set"]}`);
});
