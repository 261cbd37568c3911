/**
 * A module a service imports by URL on first use (`lazyModuleAt(import.meta.resolve("…"))` of
 * `@svc/shared/lazy-module`) is outside the module graph `deno compile` sees: each must be
 * embedded, through what the service's modules declare (deploy/lazy_modules.ts, which the compile
 * task reads) or its `include` in deploy/services.ts, or the binary fails at that first use. A walk
 * of the sources for `import.meta.resolve` (a second, independent reading) for every service; each
 * service's known by-URL modules are named, so that a walk that finds nothing fails too.
 */
import assert from "node:assert/strict";
import { SERVICES } from "./services.ts";
import { lazyModulesOf } from "./lazy_modules.ts";

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
  Deno.test(`every module ${name} imports by URL is embedded by deno compile (declared, or in its include)`, async () => {
    const service = SERVICES.find((s) => s.name === name)!;
    const include = new Set([...service.include, ...await lazyModulesOf(service.entry)]);
    const dir = new URL(service.entry.slice(0, service.entry.lastIndexOf("/") + 1), ROOT);
    const found = await byUrlModules(dir);
    for (const path of known) assert.ok(found.includes(path), `the walk finds ${path}`);
    assert.deepEqual([...new Set(found.filter((p) => !include.has(p)))], [], "not embedded");
    for (const path of include) await Deno.stat(new URL(path, ROOT)); // every entry exists
  });
}

Deno.test("the modules a service declares by URL are derived from the declarations, nested ones too", async () => {
  const list = await lazyModulesOf("deploy/testdata/lazy/entry.ts");
  // entry.ts declares first.ts at module level; first.ts, once imported, declares second.ts; the
  // node: built-in has nothing to embed; not_declared.ts is imported by name (compile sees it)
  assert.deepEqual(list, ["deploy/testdata/lazy/first.ts", "deploy/testdata/lazy/second.ts"]);
});

Deno.test("a declared module that cannot be imported fails the derivation, naming the entry", async () => {
  await assert.rejects(
    lazyModulesOf("deploy/testdata/lazy/broken_entry.ts"),
    /^Error: Cannot list the modules deploy\/testdata\/lazy\/broken_entry\.ts loads on first use: .*missing\.ts/,
  );
});

Deno.test("mock-oidc's route rows are the one list of its protocol modules loaded on first use", async () => {
  const list = await lazyModulesOf("services/mock-oidc/main.ts");
  for (const name of ["token", "authorize", "revoke", "discovery", "userinfo", "registration"]) {
    assert.ok(list.includes(`services/mock-oidc/protocol/${name}.ts`), name);
  }
  // The JWKS handler is in the start's graph (a start's first answer is often the JWKS).
  assert.ok(!list.includes("services/mock-oidc/protocol/jwks.ts"), "jwks");
  // Loaded on first use, not at start: the token factory, the outbound fetch.
  for (const path of ["tokens/token_factory.ts", "outbound/fetch_outbound.ts"]) {
    assert.ok(list.includes(`services/mock-oidc/${path}`), path);
  }
  const mock = SERVICES.find((s) => s.name === "mock-oidc")!;
  assert.deepEqual(mock.include, ["services/mock-oidc/keys/sign_worker.ts"], "only the worker");
});
