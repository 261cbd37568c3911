import assert from "node:assert/strict";

// deno compile cannot run here for real (no denort runtime can be downloaded), but with any
// executable as DENORT_BIN it resolves, checks and embeds everything a binary needs: this catches
// modules or npm packages that break compilation (prom-client did, denoland/deno#36746).
Deno.test({
  name: "deno task compile embeds every service with its permissions",
  sanitizeResources: false,
  async fn() {
    const out = await Deno.makeTempDir();
    try {
      const result = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("./compile.ts", import.meta.url).pathname,
          "--no-build-info",
          "--out",
          out,
        ],
        cwd: new URL("../", import.meta.url),
        env: { DENORT_BIN: "/bin/true", NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(result.stdout) +
        new TextDecoder().decode(result.stderr);
      assert.ok(result.success, text);
      for (const name of ["mock-oidc", "todo-api"]) {
        assert.match(text, new RegExp(`compile: ${name} -> `));
        assert.ok((await Deno.stat(`${out}/${name}`)).size > 1_000_000, name);
      }
      assert.match(text, /swagger-ui-dist/, "docs assets are embedded");
      // Workers load their module by URL at run time: compile only embeds it when included.
      assert.match(text, /sign_worker\.ts/, "mock-oidc's signing worker is embedded");
      assert.match(text, /serve_worker\.ts/, "todo-api's serve worker is embedded");
      assert.match(text, /compile: mcp-server -> /);
      assert.match(text, /compile: runner-ctl -> /);
      assert.match(
        text,
        /─┬ execute \([^)]*\)(?:\n[^\n┬]*\.ts \([^)]*\))*\n[^\n┬]*worker\.ts/,
        "mcp-server's execute worker (execute/worker.ts) is embedded",
      );
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});

Deno.test("deno task compile says what is missing when denort cannot be had", async () => {
  const denoDir = await Deno.makeTempDir();
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./compile.ts", import.meta.url).pathname, "--out", "/nonexistent"],
    env: { DENORT_BIN: "", DENO_DIR: denoDir, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(denoDir, { recursive: true });
  const err = new TextDecoder().decode(result.stderr).trim().split("\n").at(-1) ?? "";
  if (result.success) return; // a machine that can download denort has nothing to report
  assert.match(
    err,
    /^Cannot compile: the denort .* runtime cannot be downloaded here; set DENORT_BIN/,
  );
});
