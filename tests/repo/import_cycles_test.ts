import assert from "node:assert/strict";
import { findCycles, type ModuleGraph, moduleGraph } from "./import_cycles.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

const graphOf = (edges: Record<string, string[]>): ModuleGraph =>
  new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));

Deno.test("findCycles names each ring once, from its first module, and no chain", () => {
  assert.deepEqual(findCycles(graphOf({ a: ["b"], b: ["c"], c: [] })), []);
  assert.deepEqual(findCycles(graphOf({ a: ["a"] })), [["a", "a"]]);
  assert.deepEqual(
    findCycles(graphOf({ d: ["b"], b: ["c", "x"], c: ["d"], x: [], y: ["z"], z: ["y", "x"] })),
    [["b", "c", "d", "b"], ["y", "z", "y"]],
  );
  // Two rings sharing a module are one ring; the path shown is a shortest one through it.
  assert.deepEqual(findCycles(graphOf({ a: ["b", "c"], b: ["a"], c: ["d"], d: ["a"] })), [[
    "a",
    "b",
    "a",
  ]]);
});

Deno.test("the graph holds static value imports, not type-only or dynamic ones", async () => {
  const dir = await Deno.makeTempDir({ prefix: "import_cycles_" });
  try {
    const files: Record<string, string> = {
      // a value ring of three
      "a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
      "b.ts": 'import { c } from "./sub/c.ts";\nexport const b = () => c;\n',
      "sub/c.ts": 'import { a } from "../a.ts";\nexport const c = () => a;\n',
      // back edges by `import type`, `export type … from` and a dynamic import: no ring
      "d.ts": 'import { e } from "./e.ts";\nexport type D = 1;\nexport const d = e;\n',
      "e.ts": 'import type { D } from "./d.ts";\nexport const e: D = 1;\n',
      "f.ts": 'import { g } from "./g.ts";\nexport type F = 1;\nexport const f = g;\n',
      "g.ts": 'export type { F } from "./f.ts";\nexport const g = 1;\n',
      "h.ts": 'import { i } from "./i.ts";\nexport const h = i;\n',
      "i.ts": 'export const i = () => import("./h.ts");\n',
      // a `type` among value imports: still a value import, a ring
      "m.ts": 'import { n } from "./n.ts";\nexport type M = 1;\nexport const m = () => n;\n',
      "n.ts": 'import { m, type M } from "./m.ts";\nexport const n = (x: M) => [m, x];\n',
      // browser modules, and a module that reads one as text (no import of it)
      "j.js": 'import { k } from "./k.js";\nexport const j = () => k;\n',
      "k.js": 'import { j } from "./j.js";\nexport const k = () => j;\n',
      "l.ts": 'import text from "./j.js" with { type: "text" };\nexport const l = text;\n',
      "self.ts": 'import { self } from "./self.ts";\nexport const me = () => self;\n' +
        "export const self = 1;\n",
    };
    await Deno.mkdir(`${dir}/sub`);
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    const graph = await moduleGraph(dir);
    assert.deepEqual([...graph.keys()].sort(), Object.keys(files).sort());
    assert.deepEqual([...graph.get("e.ts")!], []);
    assert.deepEqual([...graph.get("g.ts")!], []);
    assert.deepEqual([...graph.get("i.ts")!], []);
    assert.deepEqual([...graph.get("l.ts")!], []);
    assert.deepEqual(findCycles(graph), [
      ["a.ts", "b.ts", "sub/c.ts", "a.ts"],
      ["j.js", "k.js", "j.js"],
      ["m.ts", "n.ts", "m.ts"],
      ["self.ts", "self.ts"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("no runtime import cycle in the workspace", async () => {
  const graph = await moduleGraph(ROOT);
  // The walk sees the members, the browser modules among them, and their imports.
  for (
    const file of [
      "services/mock-oidc/main.ts",
      "starlark/mod.ts",
      "tests/repo/import_cycles_test.ts",
    ]
  ) {
    assert.ok(graph.has(file), file);
  }
  assert.ok(
    graph.get("services/mock-oidc/browser/console/main.js")?.has(
      "services/mock-oidc/browser/console/core.js",
    ),
  );
  const cycles = findCycles(graph).map((cycle) => cycle.join(" → "));
  assert.deepEqual(cycles, [], "break these rings (type-only imports do not count)");
});
