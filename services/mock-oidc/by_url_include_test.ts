/**
 * The modules mock-oidc imports by URL on first use (`lazyModuleAt` of `@svc/shared/lazy-module`)
 * are outside the module graph `deno compile` sees: each must be in mock-oidc's `include`.
 */
import assert from "node:assert/strict";

Deno.test("every module mock-oidc imports by URL is embedded by deno compile (deploy include)", async () => {
  const root = new URL("../../", import.meta.url);
  const { SERVICES } = await import("../../deploy/services.ts");
  const include = new Set(SERVICES.find((s) => s.name === "mock-oidc")!.include);
  const resolved: string[] = [];
  const walk = async (dir: URL) => {
    for await (const e of Deno.readDir(dir)) {
      const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
      if (e.isDirectory) await walk(url);
      else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
        const text = await Deno.readTextFile(url);
        for (const [, spec] of text.matchAll(/import\.meta\.resolve\("([^"]+)"\)/g)) {
          const target = spec.startsWith(".") ? new URL(spec, url).href : import.meta.resolve(spec);
          resolved.push(target.slice(root.href.length));
        }
      }
    }
  };
  await walk(new URL("./", import.meta.url));
  assert.ok(resolved.length >= 17, `found ${resolved.length}`);
  assert.ok(resolved.includes("shared/telemetry/tracing.ts"), "the kit's tracing, by its export");
  assert.deepEqual(
    resolved.filter((p) => !include.has(p)),
    [],
    "not in deploy/services.ts include",
  );
});
