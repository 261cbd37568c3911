import assert from "node:assert/strict";
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { allowAll } from "../auth/authorizer.ts";
import { stepUpOf } from "../auth/step_up.ts";
import { resolveLimits } from "../limits.ts";
import { callCapability } from "./call_capability.ts";
import { connect, errorOf, valueOf } from "./_test_support.ts";
import { ToolError } from "./errors.ts";

const stepUp = stepUpOf([
  { capabilities: ["notes.write"], scopes: ["notes:write"] },
  { capabilities: ["notes.admin.*"], scopes: ["admin", "notes:write"] },
]);

function registry(calls: string[]): CapabilityRegistry {
  const r = new CapabilityRegistry();
  for (const name of ["notes.read", "notes.write", "notes.admin.purge"]) {
    r.register({
      name,
      summary: name,
      output: t.fields({ ok: t.bool() }),
      handler: () => {
        calls.push(name);
        return { ok: true };
      },
    });
  }
  return r;
}

const main = (body: string) => `def main():\n    ${body.split("\n").join("\n    ")}\n`;

Deno.test("without the scopes (stdio has none), a guarded program fails before anything runs", async () => {
  const calls: string[] = [];
  const c = await connect({ registry: registry(calls), stepUp });
  try {
    const run = async (body: string) => await c.call("execute", { source: main(body) });
    assert.equal(
      errorOf(await run("notes.read()\nreturn notes.write()")),
      "insufficient scope: notes:write",
    );
    assert.equal(
      errorOf(await run("return notes.admin.purge()")),
      "insufficient scope: admin notes:write",
    );
    assert.equal(
      errorOf(await run("n = notes\nreturn n.read()")),
      "insufficient scope: admin notes:write",
    );
    assert.deepEqual(calls, [], "nothing ran, not even notes.read before the guarded call");
    assert.deepEqual(valueOf(await run("return notes.read()")), { result: { ok: true } });
    assert.deepEqual(calls, ["notes.read"]);
  } finally {
    await c.close();
  }
});

Deno.test("a subject whose token carries the scopes runs the program; only the missing are named", async () => {
  const calls: string[] = [];
  const scopes = ["notes:write"];
  const c = await connect({
    registry: registry(calls),
    stepUp,
    resolver: () => ({ id: "a", scopes }),
  });
  try {
    const source = main("return [notes.write()['ok'], notes.read()['ok']]");
    assert.deepEqual(valueOf(await c.call("execute", { source })), { result: [true, true] });
    assert.equal(
      errorOf(await c.call("execute", { source: main("return notes.admin.purge()") })),
      "insufficient scope: admin",
    );
    assert.deepEqual(calls, ["notes.write", "notes.read"]);
  } finally {
    await c.close();
  }
});

Deno.test("each call checks the scopes again (a backstop to the names found in the source)", async () => {
  const calls: string[] = [];
  const deps = {
    registry: registry(calls),
    authorizer: allowAll(),
    limits: resolveLimits(),
    stepUp,
  };
  const scope = (scopes: string[]) => ({
    subject: { id: "a", scopes },
    signal: new AbortController().signal,
    intermediateBytes: 0,
  });
  const call = { name: "notes.write", args: [], kwargs: {} };
  await assert.rejects(
    () => callCapability(deps, scope([]), call),
    (err: Error) => err instanceof ToolError && err.message === "insufficient scope: notes:write",
  );
  assert.deepEqual(await callCapability(deps, scope(["notes:write"]), call), { ok: true });
  assert.deepEqual(calls, ["notes.write"]);
});
