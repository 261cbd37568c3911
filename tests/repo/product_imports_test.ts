/**
 * No product file imports the test kit (`testing/`, `@svc/testing`): product and test code do not
 * share a package, so nothing a service ships or runs can depend on a fuzzer, a process starter
 * or a wait loop.
 *
 * Product files: every `.ts`, `.tsx`, `.js` and `.mjs` file under `services/`, `shared/`,
 * `starlark/`, `browser/` and `deploy/` that is not test code. Test code: a file named
 * `*_test.<ext>` or `*_test_support.ts`, and any file under a folder named `tests`, `testing`,
 * `testdata` or `test_support`. Dev runners and helpers (`deploy/dev.ts`, `deploy/dev/`) are
 * product files: `deno task dev` runs them for a user.
 *
 * An import: `import … from`, `export … from`, `import "…"`, `import("…")`,
 * `import.meta.resolve("…")` and `new URL("…", import.meta.url)` (a worker or a child process
 * started by path), anywhere in the text (a JSDoc example counts too), naming `@svc/testing` or a
 * subpath of it, or a relative path that leads into `testing/`.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const PRODUCT_ROOTS = ["services/", "shared/", "starlark/", "browser/", "deploy/"];
const SKIP_DIRS = new Set(["node_modules", ".git", ".data", "dist", "cov"]);
const TEST_DIRS = new Set(["tests", "testing", "testdata", "test_support"]);

/** Whether `path` (relative to the repository root) is a product file. */
function isProductFile(path: string): boolean {
  if (!PRODUCT_ROOTS.some((root) => path.startsWith(root))) return false;
  if (!/\.(ts|tsx|js|mjs)$/.test(path)) return false;
  const parts = path.split("/");
  const name = parts.pop()!;
  if (/_test\.(ts|tsx|js|mjs)$/.test(name) || /_test_support\.ts$/.test(name)) return false;
  return !parts.some((dir) => TEST_DIRS.has(dir));
}

function normalize(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "." || part === "") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

const SPECIFIERS = [
  /\bfrom\s+["']([^"'\n]+)["']/g,
  /\bimport\s+["']([^"'\n]+)["']/g,
  /\bimport\(\s*["']([^"'\n]+)["']/g,
  /\bimport\.meta\.resolve\(\s*["']([^"'\n]+)["']/g,
  /\bnew URL\(\s*["'`]([^"'`\n]+)["'`]\s*,\s*import\.meta\.url/g,
];

/** The specifiers in `text` (a file at `path`) that reach the test kit, with their line. */
function testKitImports(path: string, text: string): string[] {
  const found: string[] = [];
  const dir = path.split("/").slice(0, -1).join("/");
  for (const re of SPECIFIERS) {
    for (const m of text.matchAll(re)) {
      const spec = m[1];
      const kit = spec === "@svc/testing" || spec.startsWith("@svc/testing/") ||
        (/^\.\.?\//.test(spec) && `${normalize(`${dir}/${spec}`)}/`.startsWith("testing/"));
      if (kit) found.push(`${path}:${text.slice(0, m.index).split("\n").length}: ${spec}`);
    }
  }
  return found.sort();
}

async function* files(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir + entry.name;
    if (entry.isDirectory) {
      if (!SKIP_DIRS.has(entry.name)) yield* files(path + "/");
    } else yield path;
  }
}

Deno.test("the rule tells product files from test code", () => {
  for (
    const path of [
      "services/todo-api/app.ts",
      "services/mcp-server/starlark/eval/exec.ts",
      "starlark/eval/exec.ts",
      "shared/http/server.ts",
      "shared/mod.ts",
      "browser/mock-oidc-console/core.js",
      "deploy/services.ts",
      "deploy/dev.ts",
      "deploy/runner-ctl/unit.ts",
      "deploy/dev/image-proxy/run.ts",
      "deploy/dev/runner_ctl.ts",
    ]
  ) assert.equal(isProductFile(path), true, path);
  for (
    const path of [
      "services/todo-api/app_test.ts",
      "services/todo-api/_test_support.ts",
      "services/image-proxy/object/_test_support.ts",
      "services/mcp-server/starlark/test_support/differential/compare.ts",
      "shared/http/testdata/listen_cli.ts",
      "deploy/dev_test.ts",
      "deploy/dev/image-proxy/run_test.ts",
      "testing/process.ts",
      "tests/_shipped.ts",
      "tests/fakes/simulation.ts",
      "README.md",
      "services/todo-api/deno.json",
    ]
  ) assert.equal(isProductFile(path), false, path);
});

Deno.test("the finder reports every way a product file can reach the test kit", () => {
  const file = "services/demo/app.ts";
  const text = [
    'import { waitUntil } from "@svc/testing";', // 1
    'import { hostileCases } from "@svc/testing/hostile";', // 2
    'export { runFuzz } from "../../testing/raw_http_fuzz.ts";', // 3
    'import "../../testing/mod.ts";', // 4
    'const kit = await import("@svc/testing/schema-check");', // 5
    'const url = import.meta.resolve("../../testing/process.ts");', // 6
    'new Worker(new URL("../../testing/testdata/echo_service.ts", import.meta.url));', // 7
    "/** @example import { skipSuite } from '@svc/testing'; */", // 8
  ].join("\n");
  assert.deepEqual(
    testKitImports(file, text),
    [
      `${file}:1: @svc/testing`,
      `${file}:2: @svc/testing/hostile`,
      `${file}:3: ../../testing/raw_http_fuzz.ts`,
      `${file}:4: ../../testing/mod.ts`,
      `${file}:5: @svc/testing/schema-check`,
      `${file}:6: ../../testing/process.ts`,
      `${file}:7: ../../testing/testdata/echo_service.ts`,
      `${file}:8: @svc/testing`,
    ].sort(),
  );
  // Look-alikes that are not the test kit.
  const clean = [
    'import { startServer } from "@svc/shared/server";',
    'import { x } from "@svc/testing-extra";',
    'import { y } from "./testing/local.ts";', // services/demo/testing/: not the kit
    'import { z } from "../../shared/http/testing.ts";', // a file named testing, not the kit
  ].join("\n");
  assert.deepEqual(testKitImports(file, clean), []);
});

Deno.test("no product file imports the test kit (@svc/testing, testing/)", async () => {
  const found: string[] = [];
  let checked = 0;
  for await (const path of files("")) {
    if (!isProductFile(path)) continue;
    checked++;
    found.push(...testKitImports(path, await Deno.readTextFile(new URL(path, ROOT))));
  }
  assert.ok(checked > 100, `only ${checked} product files found: is the rule still right?`);
  assert.deepEqual(found, [], "product files must not import the test kit");
});
