import assert from "node:assert/strict";
import { supervise } from "./supervise.ts";

/** A real child process running `source`; stdout piped so the test can wait for its start. */
function child(source: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", source],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
}

/** A child that says "up" and then runs until signalled, exiting 0 on SIGTERM. */
const SERVER = `Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
console.log("up"); setInterval(() => {}, 1000);`;

async function firstLine(c: Deno.ChildProcess): Promise<string> {
  const reader = c.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  await reader.cancel(); // nothing more is written
  return value ?? "";
}

Deno.test("a service that exits is reported, the others are stopped, dev ends with its code", async () => {
  const a = child(SERVER);
  const b = child(SERVER);
  assert.match(await firstLine(a), /up/);
  assert.match(await firstLine(b), /up/);
  const dying = child("Deno.exit(3)");
  await dying.stdout.cancel();
  const lines: string[] = [];
  const code = await supervise([
    { name: "a", child: a },
    { name: "dying", child: dying },
    { name: "b", child: b },
  ], { report: (l) => lines.push(l) });
  assert.equal(code, 3);
  assert.deepEqual(lines, [
    "dying exited with code 3",
    "a exited with code 0",
    "b exited with code 0",
  ]);
});

Deno.test("a service that exits with 0 on its own still fails dev (exit 1)", async () => {
  const a = child(SERVER);
  assert.match(await firstLine(a), /up/);
  const done = child("Deno.exit(0)");
  await done.stdout.cancel();
  const lines: string[] = [];
  const code = await supervise([
    { name: "done", child: done },
    { name: "a", child: a },
  ], { report: (l) => lines.push(l) });
  assert.equal(code, 1);
  assert.deepEqual(lines, ["done exited with code 0", "a exited with code 0"]);
});

Deno.test("a requested stop stops every service; dev ends 0 when all stop cleanly", async () => {
  const a = child(SERVER);
  const b = child(SERVER);
  assert.match(await firstLine(a), /up/);
  assert.match(await firstLine(b), /up/);
  const lines: string[] = [];
  const code = await supervise([
    { name: "a", child: a },
    { name: "b", child: b },
  ], { report: (l) => lines.push(l), stopRequested: Promise.resolve() });
  assert.equal(code, 0);
  assert.deepEqual(lines, ["a exited with code 0", "b exited with code 0"]);
});

Deno.test("a requested stop ends with a service's failing code; one ignoring SIGTERM is killed", async () => {
  const bad = child(`Deno.addSignalListener("SIGTERM", () => Deno.exit(4));
console.log("up"); setInterval(() => {}, 1000);`);
  const stubborn = child(`Deno.addSignalListener("SIGTERM", () => {});
console.log("up"); setInterval(() => {}, 1000);`);
  assert.match(await firstLine(bad), /up/);
  assert.match(await firstLine(stubborn), /up/);
  const lines: string[] = [];
  const code = await supervise([
    { name: "bad", child: bad },
    { name: "stubborn", child: stubborn },
  ], { report: (l) => lines.push(l), stopRequested: Promise.resolve(), killAfterMs: 200 });
  assert.equal(code, 4);
  assert.deepEqual(lines, ["bad exited with code 4", "stubborn exited with code 137"]);
});
