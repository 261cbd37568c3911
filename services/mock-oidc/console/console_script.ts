/**
 * The console script, assembled from its browser modules (`browser/mock-oidc-console/*.js` at the
 * repository root: a workspace member of its own, checked with the DOM library, which
 * `deno check` and `deno lint` cover as modules) into one strict-mode function scope (nothing leaks to `window`).
 * Inlined at the end of the page and allowed by its hash: no other inline script and no inline
 * handler can run. The modules are imported as text, so `deno compile` embeds them; joining them
 * drops their `import` lines (they import only from each other) and their `export` keywords.
 * @module
 */
import clients from "../../../browser/mock-oidc-console/clients.js" with { type: "text" };
import core from "../../../browser/mock-oidc-console/core.js" with { type: "text" };
import panels from "../../../browser/mock-oidc-console/panels.js" with { type: "text" };
import requests from "../../../browser/mock-oidc-console/requests.js" with { type: "text" };

/** One browser module as a part of the shared scope: no imports, no exports. */
export function inlineModule(source: string): string {
  return source
    .replace(/^import\s[^;]*;\n/gm, "")
    .replace(/^export (?=(async )?function |const |let )/gm, "");
}

/** The whole script. */
export const CONSOLE_SCRIPT = `"use strict";\n(() => {\n${
  [core, requests, clients, panels].map(inlineModule).join("\n")
}})();\n`;
