/**
 * The Incus client against a real Incus daemon (Debian bookworm-backports `incus-base` 6.0.x):
 * preflight, create with owner tags, config injection, start, the console log, tag filters,
 * "Instance is running" on delete, stop, delete. These machines run system containers only (no
 * vhost_vsock for VMs), so the client's instance-type switch selects `container` and a tiny
 * busybox image is built locally (no image server is reachable).
 *
 * The test starts its own `incusd` in a temporary INCUS_DIR and stops it afterwards. Where
 * incusd is not installed or cannot start (not root, no cgroups), it is skipped and says why.
 */
import assert from "node:assert/strict";
import { runCommand, skipSuite } from "@svc/testing";
import { InstanceClient, TAG } from "../../services/runner-ctl/incus/instances.ts";
import { preflight } from "../../services/runner-ctl/incus/preflight.ts";
import { IncusError, IncusTransport } from "../../services/runner-ctl/incus/transport.ts";
import { goodBaseline } from "../../services/runner-ctl/validate/_test_support.ts";

const MAIN = new URL("../../services/runner-ctl/main.ts", import.meta.url).pathname;

/** `runner-ctl validate` as a process (read-only grants, no environment). */
function validateCli(args: string[]) {
  return runCommand(Deno.execPath(), [
    "run",
    "--allow-read",
    "--allow-write",
    "--allow-net",
    MAIN,
    "validate",
    ...args,
  ]);
}

const INCUSD = "/usr/libexec/incus/incusd";
/**
 * The probe container's name, unique per run: LXC names a container's cgroup after the container
 * (`lxc.payload.<name>`) host-wide, so two runs at once (two checkouts testing on one machine)
 * with one name collide and the second start fails (`forkstart … exit status 1`).
 */
const PROBE = `rc-probe-${crypto.randomUUID().slice(0, 8)}`;

function skipReason(): string | undefined {
  try {
    Deno.statSync(INCUSD);
  } catch {
    return `${INCUSD} (apt-get install -t bookworm-backports incus-base incus-client busybox-static)`;
  }
  if (Deno.uid() !== 0) return "root (incusd runs as root)";
  try {
    Deno.statSync("/bin/busybox");
  } catch {
    return "/bin/busybox (busybox-static, to build the test image)";
  }
  return undefined;
}

async function run(cmd: string, args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(cmd, { args, env, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** Starts incusd in `dir`; resolves its process once the socket answers. */
async function startIncusd(dir: string) {
  const child = new Deno.Command(INCUSD, {
    args: ["--group", "root"],
    env: { INCUS_DIR: dir, INCUS_SKIP_INSTANCE_TYPES: "true" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const socket = `${dir}/unix.socket`;
  for (let i = 0; i < 480; i++) {
    try {
      await run("incus", ["query", "/1.0"], { INCUS_DIR: dir });
      return { child, socket };
    } catch {
      // real clock: poll interval of a wait bounded to 2 min that checks the daemon answers
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  child.kill("SIGKILL");
  await child.status;
  throw new Error("incusd did not answer on its socket within 120 s");
}

async function buildImage(dir: string, env: Record<string, string>) {
  const root = `${dir}/img/rootfs`;
  for (const d of ["bin", "sbin", "etc", "dev", "proc", "sys", "tmp", "run"]) {
    await Deno.mkdir(`${root}/${d}`, { recursive: true });
  }
  await Deno.copyFile("/bin/busybox", `${root}/bin/busybox`);
  await Deno.chmod(`${root}/bin/busybox`, 0o755);
  await Deno.symlink("busybox", `${root}/bin/sh`);
  await Deno.symlink("../bin/busybox", `${root}/sbin/init`);
  await Deno.writeTextFile(
    `${root}/etc/inittab`,
    "::sysinit:/bin/busybox echo runner-ctl-probe: booted\n::respawn:/bin/busybox sleep 3600\n",
  );
  await Deno.writeTextFile(
    `${dir}/img/metadata.yaml`,
    "architecture: x86_64\ncreation_date: 1700000000\nproperties:\n  description: busybox\n",
  );
  await run("tar", ["-cJf", `${dir}/img/metadata.tar.xz`, "-C", `${dir}/img`, "metadata.yaml"]);
  await run("tar", ["-cJf", `${dir}/img/rootfs.tar.xz`, "-C", root, "."]);
  await run("incus", ["storage", "create", "default", "dir"], env);
  await run("incus", [
    "profile",
    "device",
    "add",
    "default",
    "root",
    "disk",
    "path=/",
    "pool=default",
  ], env);
  await run("incus", [
    "image",
    "import",
    `${dir}/img/metadata.tar.xz`,
    `${dir}/img/rootfs.tar.xz`,
    "--alias",
    "bb",
  ], env);
}

const needs = skipReason();

Deno.test({
  name: "Incus client against a real incusd (containers)",
  ignore: skipSuite({ module: import.meta.url, needs }),
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "runner-ctl-incus-" });
    const env = { INCUS_DIR: dir };
    let daemon;
    try {
      daemon = await startIncusd(dir);
    } catch (err) {
      skipSuite({ module: import.meta.url, needs: `an incusd that can start here (${err})` });
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      return;
    }
    const transport = new IncusTransport({ socket: daemon.socket, project: "default" });
    const client = new InstanceClient({ transport, operationTimeoutMs: 120_000, concurrency: 2 });
    try {
      await buildImage(dir, env);
      await t.step(
        "preflight resolves the alias and pins the default profile",
        async () => {
          const p = await preflight(transport, { image: "bb", profiles: [], type: "container" });
          assert.match(p.fingerprint, /^[0-9a-f]{64}$/);
          assert.deepEqual(p.profiles, ["default"]);
          assert.equal(p.devices.root?.type, "disk");
          const again = await preflight(transport, {
            image: p.fingerprint.slice(0, 12),
            profiles: ["default"],
            type: "container",
          });
          assert.equal(again.fingerprint, p.fingerprint);
          await assert.rejects(
            preflight(transport, { image: "bb", profiles: [], type: "virtual-machine" }),
            /no qemu driver|not a virtual-machine image/,
          );
          await assert.rejects(
            preflight(transport, { image: "bb", profiles: ["ghost"], type: "container" }),
            /profile "ghost" does not exist/,
          );
        },
      );
      const p = await preflight(transport, { image: "bb", profiles: [], type: "container" });
      await t.step("create, inject, start, console, filters, stop, delete", async () => {
        await client.create({
          name: PROBE,
          type: "container",
          fingerprint: p.fingerprint,
          config: { ...p.config, [TAG.owner]: "it-owner", [TAG.scaleSet]: "s" },
          devices: p.devices,
        });
        await assert.rejects(
          client.create({
            name: PROBE,
            type: "container",
            fingerprint: p.fingerprint,
            config: {},
            devices: p.devices,
          }),
          /UNIQUE constraint failed/,
        );
        await client.patchConfig(PROBE, { [TAG.jitConfig]: "jit-secret" });
        assert.equal((await client.get(PROBE))?.config[TAG.jitConfig], "jit-secret");
        await client.setState(PROBE, "start");
        assert.equal((await client.get(PROBE))?.statusCode, 103);
        assert.deepEqual((await client.listOwned("it-owner")).map((i) => i.name), [PROBE]);
        assert.deepEqual(await client.listOwned("someone-else"), []);
        let log = "";
        for (let i = 0; i < 480 && !log.includes("booted"); i++) {
          log = new TextDecoder().decode(await client.consoleLog(PROBE));
          // real clock: poll interval of a wait bounded to 2 min that checks the console log
          await new Promise((r) => setTimeout(r, 250));
        }
        assert.match(log, /runner-ctl-probe: booted/);
        await client.patchConfig(PROBE, { [TAG.jitConfig]: "" });
        assert.equal((await client.get(PROBE))?.config[TAG.jitConfig], undefined);
        await assert.rejects(
          client.delete(PROBE),
          (e: unknown) => e instanceof IncusError && /Instance is running/.test(e.message),
        );
        await client.setState(PROBE, "stop");
        assert.equal((await client.get(PROBE))?.statusCode, 102);
        assert.match(new TextDecoder().decode(await client.consoleLog(PROBE)), /booted/);
        await client.delete(PROBE);
        assert.equal(await client.get(PROBE), undefined);
      });
      await t.step(
        "validate compares baselines with the real daemon (match, drift, policy)",
        async () => {
          const good = goodBaseline();
          const [project] = good.projects;
          await run("incus", [
            "project",
            "create",
            project.name,
            ...Object.entries(project.config).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
          ], env);
          await run("incus", [
            "profile",
            "set",
            "default",
            ...Object.entries(project.profiles[0].config).map(([k, v]) => `${k}=${v}`),
            "--project",
            project.name,
          ], env);
          const file = `${dir}/baseline.json`;
          await Deno.writeTextFile(file, JSON.stringify(good));
          const ok = await validateCli([file, "--socket", daemon.socket]);
          assert.equal(ok.code, 0, ok.stderr);
          assert.match(ok.stdout, /passes policy and matches live state/);
          await run("incus", [
            "profile",
            "set",
            "default",
            "limits.memory=8GiB",
            "--project",
            project.name,
          ], env);
          const drift = await validateCli([file, "--socket", daemon.socket]);
          assert.equal(drift.code, 1);
          assert.equal(drift.stdout, "");
          assert.match(drift.stderr, /limits.memory is 8GiB live/);
          const bad = goodBaseline();
          bad.projects[0].profiles[0].config["security.privileged"] = "true";
          await Deno.writeTextFile(file, JSON.stringify(bad));
          const policy = await validateCli([file, "--socket", daemon.socket]);
          assert.equal(policy.code, 1);
          assert.match(policy.stderr, /security.privileged/);
        },
      );
    } finally {
      transport.close();
      await run("incus", ["delete", "-f", PROBE], env).catch(() => {});
      await run("incus", ["admin", "shutdown"], env).catch(() => {});
      try {
        daemon.child.kill("SIGTERM");
      } catch { /* gone */ }
      await daemon.child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
