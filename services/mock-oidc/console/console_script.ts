/**
 * The console script, assembled from its parts into one strict-mode function scope (nothing
 * leaks to `window`). Inlined at the end of the page and allowed by its hash: no other inline
 * script and no inline handler can run.
 * @module
 */
import { SCRIPT_CORE } from "./script_core.ts";
import { SCRIPT_PANELS } from "./script_panels.ts";
import { SCRIPT_REQUESTS } from "./script_requests.ts";

/** The whole script. */
export const CONSOLE_SCRIPT =
  `"use strict";\n(() => {${SCRIPT_CORE}${SCRIPT_REQUESTS}${SCRIPT_PANELS}})();\n`;
