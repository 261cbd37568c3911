import assert from "node:assert/strict";
import { type MainIo, runMain, type ServiceMain } from "./main.ts";
import { defineSettings, SettingsError } from "../settings/mod.ts";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  const exits: number[] = [];
  const io: MainIo = { out: (l) => out.push(l), err: (l) => err.push(l) };
  return { out, err, exits, io, exit: (code: number) => void exits.push(code) };
}

Deno.test("runMain() exits with main's code, one line per error", async (t) => {
  const settings = defineSettings({
    prefix: "SVC",
    settings: { "database_url": { type: "string", secret: true, default: "", help: "db" } },
  });
  const main: ServiceMain = (args, env, io) => {
    const { values } = settings.resolve({ args, env });
    if (values.database_url === "") return Promise.resolve(0);
    if (args.includes("--boom")) throw new Error("first line\nsecond line");
    io.out("ok");
    return Promise.resolve(3);
  };
  await t.step("main's own code", async () => {
    const c = capture();
    assert.equal(await runMain(main, { name: "svc", args: [], env: () => undefined, ...c }), 0);
    assert.deepEqual(c.exits, [0]);
    const d = capture();
    const env = (n: string) => n === "SVC_DATABASE_URL" ? "x" : undefined;
    assert.equal(await runMain(main, { name: "svc", args: [], env, ...d }), 3);
    assert.deepEqual([d.exits, d.out, d.err], [[3], ["ok"], []]);
  });
  await t.step("a settings error exits 2 (or settingsExitCode) with one line", async () => {
    for (const [code, expected] of [[undefined, 2], [1, 1]] as const) {
      const c = capture();
      await runMain(main, {
        name: "svc",
        args: ["--nope"],
        env: () => undefined,
        settingsExitCode: code,
        ...c,
      });
      assert.deepEqual(c.exits, [expected]);
      assert.deepEqual(c.err, ['svc: Cannot parse flags: unknown flag "--nope"']);
    }
  });
  await t.step("any other error exits 1 with its first line", async () => {
    const c = capture();
    const env = (n: string) => n === "SVC_DATABASE_URL" ? "x" : undefined;
    await runMain(main, { name: "svc", args: ["--", "--boom"], env, ...c });
    assert.deepEqual([c.exits, c.err], [[1], ["svc: first line"]]);
  });
  await t.step("named errors keep their name; thrown non-errors say nothing", async () => {
    const c = capture();
    await runMain(() => {
      throw new Deno.errors.AddrInUse("address in use");
    }, { name: "svc", ...c });
    await runMain(() => Promise.reject("a string with a secret"), { name: "svc", ...c });
    assert.deepEqual(c.err, ["svc: AddrInUse: address in use", "svc: unexpected error"]);
    assert.deepEqual(c.exits, [1, 1]);
  });
  await t.step("SettingsError from a service's own check", async () => {
    const c = capture();
    await runMain(() => {
      throw new SettingsError("capacity.max_runners", "Cannot start: max_runners < min_runners");
    }, { name: "runner-ctl", settingsExitCode: 1, ...c });
    assert.deepEqual(c.exits, [1]);
  });
});

Deno.test("runMain() answers a lone --version from its identity, not running main", async () => {
  const identity = { name: "svc", build: { version: "1.0.0", commit: "abc", date: "2026-01-01" } };
  let ran: string[][] = [];
  const main: ServiceMain = (args) => {
    ran.push(args);
    return Promise.resolve(5);
  };
  const c = capture();
  assert.equal(await runMain(main, { name: "svc", identity, args: ["--version"], ...c }), 0);
  assert.deepEqual(c.out, ["svc 1.0.0 (commit abc, built 2026-01-01)"]);
  assert.deepEqual(c.exits, [0]);
  assert.deepEqual(ran, []);
  // Anything else goes to main; without an identity, so does --version.
  const d = capture();
  assert.equal(await runMain(main, { name: "svc", identity, args: ["--version", "x"], ...d }), 5);
  const e = capture();
  assert.equal(await runMain(main, { name: "svc", args: ["--version"], ...e }), 5);
  assert.deepEqual(ran, [["--version", "x"], ["--version"]]);
  ran = [];
});
