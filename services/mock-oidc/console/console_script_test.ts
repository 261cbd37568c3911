import assert from "node:assert/strict";
import { BROWSER_MODULES, CONSOLE_SCRIPT, inlineModule } from "./console_script.ts";

Deno.test("inlineModule drops imports and export keywords, nothing else", () => {
  const source = 'import { a } from "./a.js";\nimport {\n  b,\n} from "./b.js";\n\n' +
    "export const x = 1;\nexport function f() {}\nexport async function g() {}\n" +
    'const s = "export const y";\n';
  assert.equal(
    inlineModule(source),
    '\nconst x = 1;\nfunction f() {}\nasync function g() {}\nconst s = "export const y";\n',
  );
});

Deno.test("the console script is one strict function scope without module syntax", () => {
  assert.ok(CONSOLE_SCRIPT.startsWith('"use strict";\n(() => {\n'));
  assert.ok(CONSOLE_SCRIPT.endsWith("})();\n"));
  assert.doesNotMatch(CONSOLE_SCRIPT, /^\s*(import|export)\s/m);
  // It parses as a classic script (a syntax error would throw here).
  new Function(CONSOLE_SCRIPT);
  // Every module's parts are in: the core, the request log, the clients, the panels, the entry.
  for (
    const name of [
      "function api(",
      "function watchRequests(",
      "function loadClients(",
      "function loadClock(",
      "function refreshPanels(",
      "onTokenEntered(refreshPanels);",
    ]
  ) {
    assert.ok(CONSOLE_SCRIPT.includes(name), name);
  }
});

/** The sibling modules `source` imports (`./name.js`). */
function importsOf(source: string): string[] {
  return [...source.matchAll(/^import\s[^;]*?from\s+"\.\/([\w-]+\.js)";$/gm)].map((m) => m[1]);
}

Deno.test("importsOf reads every import line of a module, multi-line ones included", () => {
  assert.deepEqual(
    importsOf('import { a } from "./a.js";\nimport {\n  b,\n} from "./b.js";\nconst c = 1;\n'),
    ["a.js", "b.js"],
  );
  assert.deepEqual(importsOf("const s = 'import { x } from \"./x.js\";';\n"), []);
});

Deno.test("the browser modules: every one joined, each after what it imports, main.js wires the panels", async () => {
  const names = BROWSER_MODULES.map((m) => m.name);
  const onDisk: string[] = [];
  for await (const entry of Deno.readDir(new URL("../browser/console/", import.meta.url))) {
    if (entry.name.endsWith(".js")) onDisk.push(entry.name);
  }
  assert.deepEqual([...names].sort(), onDisk.sort(), "every browser module is joined");
  BROWSER_MODULES.forEach(({ name, source }, i) => {
    for (const imported of importsOf(source)) {
      assert.ok(names.indexOf(imported) >= 0, `${name} imports ${imported}, which is not joined`);
      assert.ok(names.indexOf(imported) < i, `${name} imports ${imported}, joined after it`);
    }
  });
  // One entry, last, which nothing imports; the panels import the core only, never each other
  // (so no ring), and the entry imports every panel.
  assert.equal(names.at(-1), "main.js");
  for (const { name, source } of BROWSER_MODULES.slice(0, -1)) {
    const imports = importsOf(source);
    assert.deepEqual(imports, name === "core.js" ? [] : ["core.js"], `${name} imports`);
  }
  const main = BROWSER_MODULES.at(-1)!;
  assert.deepEqual(importsOf(main.source).sort(), names.slice(0, -1).sort());
});
