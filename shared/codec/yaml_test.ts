import assert from "node:assert/strict";
import process from "node:process";
import { parseYaml, withoutProcessEnv } from "./yaml.ts";

Deno.test("withoutProcessEnv hides the environment and restores it, also after a throw", () => {
  const before = process.env;
  assert.equal(withoutProcessEnv(() => Object.keys(process.env).length), 0);
  assert.equal(process.env, before);
  assert.throws(() =>
    withoutProcessEnv(() => {
      throw new Error("boom");
    }), /boom/);
  assert.equal(process.env, before);
});

Deno.test("parseYaml parses one document and passes the yaml package's options on", () => {
  assert.deepEqual(parseYaml("a: 1\nb: [x, y]\n"), { a: 1, b: ["x", "y"] });
  const aliases = "a: &x [1]\nb: [*x, *x, *x]\n";
  assert.deepEqual(parseYaml(aliases), { a: [1], b: [[1], [1], [1]] });
  assert.throws(() => parseYaml(aliases, { maxAliasCount: 1 }), /alias/i);
  assert.throws(() => parseYaml("a: [1"), /flow|collection|end/i);
});

Deno.test("parseYaml needs no environment grant, even with LOG_TOKENS set", async () => {
  // A child with no --allow-env at all: the yaml package's reads of LOG_TOKENS/LOG_STREAM would
  // throw NotCapable there, and with the variables set (and granted) would print every token.
  const code = `import { parseYaml } from "${new URL("./yaml.ts", import.meta.url)}";
    console.log(JSON.stringify(parseYaml("a: 1\\nb: [x, y]")));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-prompt", code],
    env: { LOG_TOKENS: "1", LOG_STREAM: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(stdout, '{"a":1,"b":["x","y"]}\n');
});
