/**
 * The reference image's guest side (`deploy/runner-ctl/image/`), as far as it runs here: the
 * bootstrap script against a fake `/dev/incus/sock` (a Unix-socket server answering the guest API)
 * and a fake runner — it reads `user.runner-ctl-jitconfig`, starts `run.sh --jitconfig <value>`,
 * reports Ready, powers off when the runner exits (and when there is no key, or the runner fails),
 * never printing the JIT configuration; the scripts' syntax (`bash -n`) and the bootstrap unit
 * (`systemd-analyze verify`, where installed). The VM build itself needs Incus and the internet:
 * planned on paper in deploy/runner-ctl/README.md.
 */
import assert from "node:assert/strict";
import { skipSuite } from "@svc/testing";

const IMAGE = new URL("../../deploy/runner-ctl/image/", import.meta.url).pathname;
const JIT = "eyJzZWNyZXQiOiJqaXQtY29uZmlnLXZhbHVlIn0=";

async function guest(o: { key?: string; runnerExit?: number; waitS?: number }) {
  const dir = await Deno.makeTempDir({ prefix: "runner-bootstrap-" });
  const sock = `${dir}/sock`;
  const seen: { method: string; path: string; body: string }[] = [];
  const server = Deno.serve({ path: sock, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    seen.push({ method: req.method, path, body: await req.text() });
    if (req.method === "GET" && path === "/1.0/config/user.runner-ctl-jitconfig") {
      return o.key === undefined
        ? new Response("not found", { status: 404 })
        : new Response(o.key, { headers: { "content-type": "text/plain" } });
    }
    if (req.method === "PATCH" && path === "/1.0") return Response.json({});
    return new Response("not found", { status: 404 });
  });
  await Deno.mkdir(`${dir}/runner`);
  await Deno.writeTextFile(
    `${dir}/runner/run.sh`,
    `#!/bin/bash\nprintf '%s\\n' "$@" > "${dir}/args"\nexit ${o.runnerExit ?? 0}\n`,
    { mode: 0o755 },
  );
  try {
    const out = await new Deno.Command("bash", {
      args: [`${IMAGE}runner-bootstrap.sh`],
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        RUNNER_CTL_DEVINCUS_SOCK: sock,
        RUNNER_CTL_RUNNER_DIR: `${dir}/runner`,
        RUNNER_CTL_RUN_AS: "",
        RUNNER_CTL_POWEROFF: `touch ${dir}/powered-off`,
        RUNNER_CTL_WAIT_S: String(o.waitS ?? 5),
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const exists = (p: string) => Deno.stat(p).then(() => true, () => false);
    return {
      code: out.code,
      said: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
      seen,
      args: await Deno.readTextFile(`${dir}/args`).catch(() => undefined),
      poweredOff: await exists(`${dir}/powered-off`),
    };
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the bootstrap reads the JIT key, runs the runner with it, reports Ready, powers off", async () => {
  const r = await guest({ key: JIT });
  assert.equal(r.code, 0, r.said);
  assert.equal(r.args, `--jitconfig\n${JIT}\n`);
  const patch = r.seen.find((s) => s.method === "PATCH");
  assert.deepEqual(patch && [patch.path, JSON.parse(patch.body)], ["/1.0", { state: "Ready" }]);
  assert.ok(r.poweredOff, "powered off after the runner exited");
  assert.ok(!r.said.includes(JIT), "the JIT configuration is never printed");
  assert.match(r.said, /runner exited \(0\); powering off/);
});

Deno.test("a runner that fails: its exit status, and still a power-off", async () => {
  const r = await guest({ key: JIT, runnerExit: 3 });
  assert.equal(r.code, 3);
  assert.ok(r.poweredOff);
  assert.match(r.said, /runner exited \(3\)/);
});

Deno.test("no JIT key within the wait: no runner, no Ready, one message, a power-off", async () => {
  const r = await guest({ waitS: 1 });
  assert.equal(r.code, 1);
  assert.equal(r.args, undefined, "the runner never started");
  assert.equal(r.seen.filter((s) => s.method === "PATCH").length, 0);
  assert.match(r.said, /no user\.runner-ctl-jitconfig after 1 s; powering off/);
  assert.ok(r.poweredOff);
});

Deno.test("the recipe's scripts parse, and the bootstrap unit verifies", async () => {
  for (const script of ["build.sh", "runner-bootstrap.sh"]) {
    const out = await new Deno.Command("bash", { args: ["-n", `${IMAGE}${script}`] }).output();
    assert.equal(out.code, 0, `${script}: ${new TextDecoder().decode(out.stderr)}`);
    assert.ok((await Deno.stat(`${IMAGE}${script}`)).mode! & 0o100, `${script} is executable`);
  }
  const found = await new Deno.Command("systemd-analyze", { args: ["--version"], stdout: "null" })
    .output().then(() => true, () => false);
  const part = "systemd-analyze verify (runner-bootstrap.service)";
  if (skipSuite({ module: import.meta.url, part, needs: found ? undefined : "systemd-analyze" })) {
    return;
  }
  const dir = await Deno.makeTempDir();
  try {
    const text = (await Deno.readTextFile(`${IMAGE}runner-bootstrap.service`))
      .replace("/usr/local/lib/runner-ctl/runner-bootstrap.sh", "/bin/true");
    await Deno.writeTextFile(`${dir}/runner-bootstrap.service`, text);
    const out = await new Deno.Command("systemd-analyze", {
      args: ["verify", "--man=no", `${dir}/runner-bootstrap.service`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.doesNotMatch(said, /runner-bootstrap\.service:\d+|Unknown|ignoring|Failed/i, said);
    assert.equal(out.code, 0, said);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
