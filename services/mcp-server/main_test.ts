import assert from "node:assert/strict";
import { SettingsError } from "@svc/shared/settings";
import { main } from "./main.ts";

/** Runs `main` in process; returns its code and what it wrote to `out`. */
async function run(args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await main(args, () => undefined, { out: (line) => out.push(line), err: () => {} });
  return { code, out: out.join("\n") };
}

Deno.test("main: --help prints the usage and every flag, exit 0", async () => {
  const { code, out } = await run(["--help"]);
  assert.equal(code, 0);
  assert.match(out, /^Usage: mcp-server \[--transport stdio\|http\] \[flags\]/);
  assert.match(out, /--list-capabilities/);
});

Deno.test("main: --list-capabilities prints the demo signatures, exit 0", async () => {
  const { code, out } = await run(["--list-capabilities", "--log-level", "error"]);
  assert.equal(code, 0);
  const lines = out.trimEnd().split("\n");
  assert.ok(lines.includes("time.now()"), out);
  assert.ok(lines.includes("records.get(*, key: str)"), out);
});

Deno.test("main: settings it cannot honour are SettingsErrors naming the setting", async (t) => {
  await t.step("a positional argument", async () => {
    await assert.rejects(
      run(["serve"]),
      (err: unknown) =>
        err instanceof SettingsError && err.key === "args" &&
        err.message === "Cannot start: unexpected argument (see --help)",
    );
  });
  await t.step("the http transport without an issuer", async () => {
    await assert.rejects(
      run(["--transport", "http", "--log-level", "error"]),
      (err: unknown) =>
        err instanceof SettingsError && err.key === "issuer" &&
        err.message ===
          "Cannot start the http transport: the OIDC issuer is required (set --issuer / MCP_ISSUER)",
    );
  });
});
