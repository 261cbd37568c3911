/**
 * What the server tells agents about itself: the tool descriptions of tools/list (stating the
 * effective limits, from the same rows as the limits tables of the docs), the `instructions` of
 * the initialize result, and the annotations of `execute`, which follow from the capabilities.
 * @module
 */
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Capability } from "../capabilities/registry.ts";
import { type Limits, toolLimits } from "../limits.ts";

/** search_api's description, with its limits. */
export function searchDescription(limits: Limits): string {
  return "Find capabilities by keywords. Returns {name, signature, summary} results, best first " +
    "(an exact dotted name ranks first). Then call describe_api with an exact returned name " +
    "before using it in execute. Empty results mean no match: try other words. Limits: " +
    `${toolLimits("search_api", limits)} (truncated is true when results were left out).`;
}

export const DESCRIBE_DESCRIPTION =
  "Describe one capability by its exact dotted name (as returned by search_api): signature, " +
  "summary, description, and the input and output fields with their types. Input fields are " +
  "keyword arguments; `T | None` inputs are optional. Output `name?: T` fields may be absent.";

/** execute's description, with the limits each call runs under. */
export function executeDescription(limits: Limits): string {
  return [
    "Run a Starlark program that defines `def main():` with zero arguments and returns the final",
    "value; the result is {result: <value returned by main>}. Call capabilities only inside main,",
    'by dotted name with keyword arguments only, e.g. `records.lookup(key="a")`, using names',
    "confirmed with search_api and describe_api. Dialect: no import, load, while, f-strings,",
    "filter, map or set (use comprehensions); no recursion; print output is discarded; json and",
    "math are predeclared. Each call gets fresh state and budgets. Limits per call:",
    `${toolLimits("execute", limits)}; beyond one: \`resource limit exceeded\`.`,
    "On `invalid capability arguments` compare the call with the signature;",
    "on `capability failed` the program stopped, submit a new one; on `resource limit exceeded`",
    "reduce the work or data.",
  ].join(" ");
}

/**
 * The initialize result's `instructions`: how the tools fit together and the recovery rules of
 * the error texts (docs/mcp-server.md#error-texts).
 */
export const INSTRUCTIONS = [
  "Capabilities are called from Starlark programs run by execute. Find one with search_api,",
  "read its exact signature with describe_api (using a name search returned), then call it by",
  "that dotted name with keyword arguments inside `def main():` and return the value.",
  "After `capability not found`: search again and describe a name it returned.",
  "After `invalid capability arguments`: compare the call with the signature and input fields.",
  "After `capability failed` or `invalid program`: the program stopped; submit a new one that",
  "defines main with no parameters, uses only available syntax, calls only confirmed names inside",
  "main and returns its value.",
  "After `resource limit exceeded`: do less (execute's description states the limits).",
  "After `permission denied`: the capability is not allowed for you; do not retry it.",
  "After `insufficient scope`: the user must grant the scopes it names before a retry.",
].join("\n");

/**
 * execute's annotations, from the enabled capabilities: `readOnlyHint` only when every one is a
 * read (`readOnly`: an OpenAPI GET or HEAD operation, or a host capability registered so), else
 * `destructiveHint` (some capability may change something, and nothing says it only adds);
 * `openWorldHint` when some capability reaches a system outside this server (an OpenAPI API).
 * A program may call any of them, so the tool is as safe as the least safe one.
 */
export function executeAnnotations(capabilities: readonly Capability[]): ToolAnnotations {
  const readOnly = capabilities.every((capability) => capability.readOnly);
  const openWorld = capabilities.some((capability) => capability.openWorld);
  return readOnly ? { readOnlyHint: true, openWorldHint: openWorld } : {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: openWorld,
  };
}
