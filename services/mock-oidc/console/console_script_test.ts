import assert from "node:assert/strict";
import { CONSOLE_SCRIPT, inlineModule } from "./console_script.ts";

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
  // Every module's parts are in: the core, the request log, the clients, the panels.
  for (
    const name of [
      "function api(",
      "function watchRequests(",
      "function loadClients(",
      "function refreshPanels(",
    ]
  ) {
    assert.ok(CONSOLE_SCRIPT.includes(name), name);
  }
});
