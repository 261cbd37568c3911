/**
 * mcp-server's start path (the modules `main.ts` imports statically, which load before it can
 * answer anything) holds no npm package and no `node:` module: the MCP SDK, zod and ajv load
 * after the first answer, `jose` with the first bearer token, `node:worker_threads` with the first
 * execute worker, the OpenAPI host only when an `--openapi` setting names an API. Any `node:`
 * import loads Deno's Node compatibility layer, and each of these packages costs milliseconds of
 * CPU before the first answer (tests/bench/RESULTS.md, "mcp-server, start path trimmed"). They are
 * not even in the module graph `deno run` builds at start: they load by URL
 * (shared/lifecycle/lazy_module.ts), so the whole graph of the entry is its start path.
 */
import assert from "node:assert/strict";
import { lazyModulesOf } from "../../deploy/lazy_modules.ts";
import { SERVICES } from "../../deploy/services.ts";

interface InfoModule {
  specifier: string;
  dependencies?: Array<{ code?: { specifier?: string }; isDynamic?: boolean }>;
}

const ROOT = new URL("../../", import.meta.url);
const ENTRY = new URL("services/mcp-server/main.ts", ROOT).href;

/** `deno info --json` of the entry: every module, static and dynamic imports alike. */
async function moduleGraph(): Promise<
  { modules: Map<string, InfoModule>; redirects: Record<string, string> }
> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "services/mcp-server/main.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: InfoModule[];
    redirects?: Record<string, string>;
  };
  return {
    modules: new Map(info.modules.map((m) => [m.specifier, m])),
    redirects: info.redirects ?? {},
  };
}

/**
 * The specifiers reachable from `root` through static imports only, or (`dynamic`) through
 * literal dynamic imports as well: the code graph `deno run` builds at start (type-only imports,
 * `typeof import("…")` included, are not in it).
 */
function staticClosure(
  graph: { modules: Map<string, InfoModule>; redirects: Record<string, string> },
  root: string,
  dynamic = false,
): Set<string> {
  const seen = new Set<string>();
  const todo = [root];
  while (todo.length > 0) {
    const raw = todo.pop()!;
    const specifier = graph.redirects[raw] ?? raw;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of graph.modules.get(specifier)?.dependencies ?? []) {
      if ((dynamic || !dep.isDynamic) && dep.code?.specifier) todo.push(dep.code.specifier);
    }
  }
  return seen;
}

const local = (path: string) => new URL(`services/mcp-server/${path}`, ROOT).href;
const interpreter = (path: string) => new URL(`starlark/${path}`, ROOT).href;

Deno.test("mcp-server's start path: no npm package, no node: module", async (t) => {
  const graph = await moduleGraph();
  const start = staticClosure(graph, ENTRY);

  await t.step("the walk sees the start path and tells dynamic imports apart", () => {
    for (const path of ["app.ts", "serve.ts", "execute/pool.ts", "capabilities/names.ts"]) {
      assert.ok(start.has(local(path)), `${path} is on the start path`);
    }
    for (const path of ["transport/mcp_route.ts", "openapi/host.ts", "execute/channel.ts"]) {
      assert.ok(!start.has(local(path)), `${path} loads later`);
    }
  });

  await t.step("what loads later is not in the graph at start either (imported by URL)", () => {
    const built = staticClosure(graph, ENTRY, true);
    for (
      const path of [
        "transport/mcp_route.ts",
        "transport/stdio.ts",
        "openapi/host.ts",
        "execute/channel.ts",
        "auth/jose.ts",
      ]
    ) {
      assert.ok(!built.has(local(path)), `${path} is outside the graph`);
    }
    // but the kit's `node:process`: its settings-file decoder (shared/settings/yaml_file.ts, by a
    // literal import, for the read grant) loads shared/codec/yaml.ts, which imports it
    const outside = [...built].filter((s) => /^(npm|node):/.test(s) && s !== "node:process");
    assert.deepEqual(outside, [], "no npm: or node: module in the whole graph");
  });

  await t.step("no npm: or node: specifier among the static imports", () => {
    const outside = [...start].filter((s) => s.startsWith("npm:") || s.startsWith("node:"));
    assert.deepEqual(outside, []);
  });

  await t.step("the Starlark interpreter stays off it (only its keyword list is on it)", () => {
    const starlark = [...start].filter((s) => s.startsWith(interpreter("")));
    assert.deepEqual(starlark, [interpreter("keywords.ts")]);
  });
});

Deno.test("what loads later is embedded by deno compile: derived from its declarations", async () => {
  // the /mcp row's module, serve.ts's OpenAPI host, MCP upstream host and stdio transport, the
  // bearer verifier's JWT library, the pool's reply channel: each declared once, where it is used
  const list = await lazyModulesOf("services/mcp-server/main.ts");
  assert.deepEqual(list.toSorted(), [
    "services/mcp-server/auth/jose.ts",
    "services/mcp-server/execute/channel.ts",
    "services/mcp-server/mcp_upstream/host.ts",
    "services/mcp-server/openapi/host.ts",
    "services/mcp-server/transport/mcp_route.ts",
    "services/mcp-server/transport/stdio.ts",
  ]);
  const { include } = SERVICES.find((s) => s.name === "mcp-server")!;
  assert.deepEqual(include, ["services/mcp-server/execute/worker.ts"], "only the worker");
});
