/**
 * `runner-ctl validate` as a real process (no --allow-env: it reads no environment)
 * against the fake Incus: a matching baseline, a drifted one, a policy-violating one, a missing
 * project, and an unreachable socket.
 */
import assert from "node:assert/strict";
import { runCommand } from "@svc/testing";
import { startFakeIncus } from "../fakes/incus/fake_incus.ts";
import { goodBaseline } from "../../services/runner-ctl/validate/_test_support.ts";

const MAIN = new URL("../../services/runner-ctl/main.ts", import.meta.url).pathname;

function validate(args: string[]) {
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

Deno.test("validate against the fake Incus", async (t) => {
  const incus = await startFakeIncus();
  const dir = await Deno.makeTempDir();
  try {
    const good = goodBaseline();
    incus.projects.set("runners", {
      name: "runners",
      config: { "features.profiles": "true", ...good.projects[0].config },
    });
    incus.profiles.set("runners/default", {
      name: "default",
      description: "",
      config: { ...good.projects[0].profiles[0].config },
      devices: {},
    });
    const write = async (name: string, value: unknown) => {
      await Deno.writeTextFile(`${dir}/${name}`, JSON.stringify(value));
      return `${dir}/${name}`;
    };
    const goodFile = await write("good.json", good);
    const socket = ["--socket", incus.path];
    const before = incus.seen.length;

    await t.step("a matching baseline passes with one line on stdout", async () => {
      const r = await validate([goodFile, ...socket]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.split("\n").filter(Boolean).length, 1);
      assert.match(
        r.stdout,
        /passes policy and matches live state \(1 project\(s\), 1 profile\(s\)\)/,
      );
    });
    await t.step("it only reads (GET requests only)", () => {
      const calls = incus.seen.slice(before);
      assert.ok(calls.length >= 3);
      assert.ok(calls.every((c) => c.method === "GET"), JSON.stringify(calls));
    });
    await t.step("an extra live security key is a notice on stderr, not a failure", async () => {
      incus.profiles.get("runners/default")!.config["security.csm"] = "false";
      const r = await validate([goodFile, ...socket]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /notice: project runners profile default: live security.csm/);
      delete incus.profiles.get("runners/default")!.config["security.csm"];
    });
    await t.step("drift fails with the key named", async () => {
      incus.profiles.get("runners/default")!.config["limits.memory"] = "8GiB";
      const r = await validate([goodFile, ...socket]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /drift: project runners profile default: limits.memory is 8GiB live/);
      incus.profiles.get("runners/default")!.config["limits.memory"] = "4GiB";
    });
    await t.step("a missing project is drift", async () => {
      const b = goodBaseline();
      b.projects[0].name = "elsewhere";
      const r = await validate([await write("missing.json", b), ...socket]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /project elsewhere does not exist/);
    });
    await t.step("a policy-violating baseline fails before any Incus call", async () => {
      const b = goodBaseline();
      b.projects[0].profiles[0].config["security.privileged"] = "true";
      const n = incus.seen.length;
      const r = await validate([await write("bad.json", b), ...socket]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /policy: .*security.privileged must not be "true"/);
      assert.equal(incus.seen.length, n);
    });
    await t.step("bad input and an unreachable socket fail cleanly", async () => {
      let r = await validate([`${dir}/none.json`, ...socket]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /Cannot read baseline/);
      r = await validate([await write("shape.json", { version: 1 }), ...socket]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /lacks projects/);
      r = await validate([goodFile, "--socket", `${dir}/no.socket`]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /Cannot read live state/);
      r = await validate([]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /Usage: runner-ctl validate/);
    });
  } finally {
    await incus.close();
    await Deno.remove(dir, { recursive: true });
  }
});
