/**
 * The console script, assembled from its browser modules (`../browser/console/*.js`: browser code
 * in a workspace member of its own, `services/mock-oidc/browser`, checked with the DOM library,
 * which `deno check` and `deno lint` cover as modules) into one strict-mode function scope
 * (nothing leaks to `window`). Inlined at the end of the page and allowed by its hash: no other
 * inline script and no inline handler can run. The modules are imported as text, so
 * `deno compile` embeds them; joining them drops their `import` lines (they import only from each
 * other) and their `export` keywords.
 * @module
 */
import clients from "../browser/console/clients.js" with { type: "text" };
import core from "../browser/console/core.js" with { type: "text" };
import dpop from "../browser/console/dpop.js" with { type: "text" };
import faults from "../browser/console/faults.js" with { type: "text" };
import main from "../browser/console/main.js" with { type: "text" };
import panels from "../browser/console/panels.js" with { type: "text" };
import requests from "../browser/console/requests.js" with { type: "text" };

/**
 * The browser modules in the order they are joined: each after the modules it imports (their
 * top-level `const`s must be set before its top-level code runs), the entry `main.js` last.
 */
export const BROWSER_MODULES: readonly { name: string; source: string }[] = [
  { name: "core.js", source: core },
  { name: "clients.js", source: clients },
  { name: "faults.js", source: faults },
  { name: "dpop.js", source: dpop },
  { name: "requests.js", source: requests },
  { name: "panels.js", source: panels },
  { name: "main.js", source: main },
];

/** One browser module as a part of the shared scope: no imports, no exports. */
export function inlineModule(source: string): string {
  return source
    .replace(/^import\s[^;]*;\n/gm, "")
    .replace(/^export (?=(async )?function |const |let )/gm, "");
}

/** The whole script. */
export const CONSOLE_SCRIPT = `"use strict";\n(() => {\n${
  BROWSER_MODULES.map(({ source }) => inlineModule(source)).join("\n")
}})();\n`;
