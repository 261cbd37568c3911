/**
 * A module a service imports by URL on first use (`lazyModuleAt(import.meta.resolve("…"))` of
 * `@svc/shared/lazy-module`) is outside the module graph `deno compile` sees: each must be in the
 * service's `include` in deploy/services.ts, or the binary fails at that first use. One walk for
 * every service; each service's known by-URL modules are named, so that a walk that finds nothing
 * fails too.
 */
import assert from "node:assert/strict";
import { SERVICES } from "./services.ts";

const ROOT = new URL("../", import.meta.url);

/** The target of each `import.meta.resolve("…")` in the shipped (non-test) modules under `dir`. */
async function byUrlModules(dir: URL, found: string[] = []): Promise<string[]> {
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) {
      if (e.name !== "testdata" && e.name !== "test_support") await byUrlModules(url, found);
    } else if (e.name.endsWith(".ts") && !/_test(_support)?\.ts$/.test(e.name)) {
      const text = await Deno.readTextFile(url);
      for (const [, spec] of text.matchAll(/import\.meta\.resolve\(\s*"([^"]+)"\s*\)/g)) {
        if (spec.startsWith("node:")) continue; // part of the runtime: nothing to embed
        const target = spec.startsWith(".") ? new URL(spec, url).href : import.meta.resolve(spec);
        found.push(target.startsWith(ROOT.href) ? target.slice(ROOT.href.length) : target);
      }
    }
  }
  return found;
}

const KNOWN: Record<string, string[]> = {
  "mock-oidc": ["shared/observe/tracing.ts", "services/mock-oidc/protocol/token.ts"],
  "mcp-server": [
    "services/mcp-server/transport/mcp_route.ts",
    "services/mcp-server/auth/jose.ts",
    "services/mcp-server/execute/channel.ts",
  ],
  "image-proxy": ["services/image-proxy/store/s3_store.ts", "shared/observe/otlp_metrics.ts"],
  "todo-api": ["services/todo-api/store/pglite_db.ts", "services/todo-api/store/postgres_db.ts"],
};

for (const [name, known] of Object.entries(KNOWN)) {
  Deno.test(`every module ${name} imports by URL is embedded by deno compile (its include)`, async () => {
    const service = SERVICES.find((s) => s.name === name)!;
    const include = new Set(service.include);
    const dir = new URL(service.entry.slice(0, service.entry.lastIndexOf("/") + 1), ROOT);
    const found = await byUrlModules(dir);
    for (const path of known) assert.ok(found.includes(path), `the walk finds ${path}`);
    assert.deepEqual([...new Set(found.filter((p) => !include.has(p)))], [], "not in include");
    for (const path of include) await Deno.stat(new URL(path, ROOT)); // every entry exists
  });
}
