/**
 * The kit's modules that other kit modules import by URL (`import.meta.resolve`) on first use
 * rather than with a literal specifier. Why: `deno run` builds the graph of every module a program
 * can import before running it, literal dynamic imports included, and reads, parses and (for npm
 * packages) resolves all of them, although nothing runs them; a specifier computed at run time
 * stays out of that. `deno compile` does not see such a module either, so the compile task
 * embeds these in every binary (`on_demand_test.ts` checks that the list is complete). Under
 * `deno run` such an import needs read access to the module (the settings file decoder keeps its
 * literal import for that reason: a service reading its YAML file needs no grant beyond it).
 *
 * @module
 */

/**
 * Kit modules imported by URL, relative to the repository root. npm packages the kit imports by
 * URL (`yaml`, which needs no read grant that way) are embedded through the modules here that
 * import them by name.
 */
export const KIT_ON_DEMAND: readonly string[] = [
  "shared/http/openapi_assets.ts",
];
