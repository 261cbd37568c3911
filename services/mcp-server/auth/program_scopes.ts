/**
 * The scopes a program needs, from the capabilities its source names (the interpreter's parser
 * and resolver: `predeclaredPaths`). A module of its own so that the start path stays off the
 * interpreter: only execute and the `/mcp` route, loaded later, use it.
 * @module
 */
import { predeclaredPaths } from "@svc/starlark";
import type { StepUp } from "./step_up.ts";

/**
 * The scopes a program needs: those of every enabled capability it names. A name taken as a value
 * (`t = todos`, `getattr(todos, ...)`) names everything below it. Empty for a program that does
 * not parse or resolve (it fails as `invalid program` without calling anything).
 */
export function programScopes(
  stepUp: StepUp,
  source: string,
  capabilities: readonly string[],
): string[] {
  const roots = [...new Set(capabilities.map((name) => name.split(".")[0]))];
  const paths = predeclaredPaths(source, roots) ?? [];
  const needed = new Set<string>();
  for (const path of paths) {
    for (const name of capabilities) {
      if (name === path || name.startsWith(`${path}.`) || path.startsWith(`${name}.`)) {
        for (const scope of stepUp.scopesOf(name)) needed.add(scope);
      }
    }
  }
  return [...needed].sort();
}
