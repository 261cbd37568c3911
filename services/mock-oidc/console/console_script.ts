/**
 * `/_mock/ui/console.js`: the console's script, assembled from its parts into one strict-mode
 * function scope (nothing leaks to `window`). Served from this origin, so the CSP allows it with
 * `script-src 'self'` and no inline script or handler.
 * @module
 */
import { SCRIPT_CORE } from "./script_core.ts";
import { SCRIPT_PANELS } from "./script_panels.ts";
import { SCRIPT_REQUESTS } from "./script_requests.ts";

/** The whole script. */
export const CONSOLE_SCRIPT =
  `"use strict";\n(() => {${SCRIPT_CORE}${SCRIPT_REQUESTS}${SCRIPT_PANELS}})();\n`;
