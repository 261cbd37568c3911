/**
 * YAML parsed without the process environment. The `yaml` package's Node build reads two debug
 * switches, `LOG_TOKENS` and `LOG_STREAM`, on every token: under a scoped `--allow-env` (or none)
 * that read throws NotCapable, so a service would need an environment grant only to read YAML, and
 * a set variable would dump the text (secrets too) to stdout. Parsing is synchronous, so nothing
 * else runs while the real environment is swapped out. Every YAML read of the workspace goes
 * through here (the settings file loader and mcp-server's OpenAPI documents).
 *
 * @module
 */
import process from "node:process";

// The package by URL: a literal import would have `deno run` resolve it at the start of every
// service whose settings can read a file, none of which reads one by default
// (../lifecycle/on_demand.ts).
const { parse }: typeof import("yaml") = await import(import.meta.resolve("yaml"));

/**
 * Runs `fn` with an empty `process.env` and restores it afterwards, even when `fn` throws.
 *
 * @param fn Synchronous work that must not see the environment (a YAML parse).
 * @returns What `fn` returns.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import process from "node:process";
 * import { withoutProcessEnv } from "@svc/shared/yaml";
 *
 * assert.equal(withoutProcessEnv(() => Object.keys(process.env).length), 0);
 * ```
 */
export function withoutProcessEnv<T>(fn: () => T): T {
  const env = process.env;
  process.env = {};
  try {
    return fn();
  } finally {
    process.env = env;
  }
}

/** Options of {@linkcode parseYaml}: the bounds of the `yaml` package that callers set. */
export interface YamlOptions {
  /**
   * The most alias nodes one document may resolve; a bound against alias expansion ("billion
   * laughs"). `-1` lifts it. @default 100
   */
  maxAliasCount?: number;
}

/**
 * Parses one YAML document to plain values, without reading the environment.
 *
 * @param text The YAML text.
 * @param options The `yaml` package's parse options (e.g. `maxAliasCount`).
 * @returns The document's value.
 * @throws {Error} the `yaml` package's `YAMLParseError` on invalid YAML.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseYaml } from "@svc/shared/yaml";
 *
 * assert.deepEqual(parseYaml("a: [1, two]"), { a: [1, "two"] });
 * ```
 */
export function parseYaml(text: string, options?: YamlOptions): unknown {
  return withoutProcessEnv(() => parse(text, options));
}
