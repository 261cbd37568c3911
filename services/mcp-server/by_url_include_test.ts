/**
 * The modules mcp-server imports by URL on first use (`lazyModuleAt` of `@svc/shared/lazy-module`,
 * given `import.meta.resolve` of a literal) are outside the module graph `deno compile` sees: each
 * must be in mcp-server's `include` in deploy/services.ts.
 */
import assert from "node:assert/strict";
import { SERVICES } from "../../deploy/services.ts";

const ROOT = new URL("../../", import.meta.url);

/** The target of each `import.meta.resolve("…")` under `dir`, relative to the root. */
async function byUrlModules(dir: URL, found: string[] = []): Promise<string[]> {
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) {
      if (e.name !== "testdata") await byUrlModules(url, found);
    } else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
      const text = await Deno.readTextFile(url);
      for (const [, spec] of text.matchAll(/import\.meta\.resolve\(\s*"([^"]+)"\s*\)/g)) {
        // `node:` built-ins are part of the runtime: nothing to embed
        if (spec.startsWith("node:")) continue;
        const target = spec.startsWith(".") ? new URL(spec, url).href : import.meta.resolve(spec);
        found.push(target.startsWith(ROOT.href) ? target.slice(ROOT.href.length) : target);
      }
    }
  }
  return found;
}

Deno.test("every module mcp-server imports by URL is embedded by deno compile (deploy include)", async () => {
  const include = new Set(SERVICES.find((s) => s.name === "mcp-server")!.include);
  const found = await byUrlModules(new URL("services/mcp-server/", ROOT));
  for (
    const path of [
      "services/mcp-server/transport/mcp_route.ts",
      "services/mcp-server/auth/jose.ts",
      "services/mcp-server/execute/channel.ts",
    ]
  ) {
    assert.ok(found.includes(path), `the walk finds ${path}`);
  }
  assert.deepEqual([...new Set(found.filter((p) => !include.has(p)))], [], "not in the include");
  for (const path of include) await Deno.stat(new URL(path, ROOT));
});
