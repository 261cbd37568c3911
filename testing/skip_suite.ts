/**
 * Loud skips: a suite that cannot run here (no Postgres, no Go, no Chromium, no Incus…) is
 * ignored with one line on stderr naming it and what it needs, so a green run never hides a
 * suite that did not run. `.ci/run` collects these lines into a summary.
 *
 * @module
 */

/** The prefix of every line {@linkcode skipSuite} prints; `.ci/run` greps for it. */
export const SKIPPED_PREFIX = "SKIPPED ";

/** Options of {@linkcode skipSuite}. */
export interface SkipSuiteOptions {
  /** The suite's module, `import.meta.url`; printed relative to the working directory. */
  module: string;
  /** Which tests of the module, when not all of them, e.g. `"postgres backend"`. */
  part?: string;
  /**
   * What the suite needs and this machine lacks, e.g. `"TEST_DATABASE_URL (a Postgres server)"`;
   * `undefined` when everything it needs is present.
   */
  needs: string | undefined;
  /** Where the line goes. @default a write to stderr */
  write?: (line: string) => void;
}

const printed = new Set<string>();

/**
 * Whether to ignore a suite: `true` when `needs` names something missing, after printing
 * `SKIPPED <module>[ (<part>)]: needs <needs>` once per module and part. Use it as the `ignore`
 * of `Deno.test`.
 *
 * @example Usage
 * ```ts ignore
 * import { skipSuite } from "@svc/testing";
 * const url = Deno.env.get("TEST_DATABASE_URL");
 * Deno.test({
 *   name: "durable across restarts",
 *   ignore: skipSuite({
 *     module: import.meta.url,
 *     needs: url ? undefined : "TEST_DATABASE_URL (a Postgres server)",
 *   }),
 *   fn() {},
 * });
 * ```
 */
export function skipSuite(options: SkipSuiteOptions): boolean {
  if (options.needs === undefined) return false;
  const suite = displayPath(options.module) + (options.part ? ` (${options.part})` : "");
  const line = `${SKIPPED_PREFIX}${suite}: needs ${options.needs}`;
  if (!printed.has(line)) {
    printed.add(line);
    (options.write ?? writeStderr)(line);
  }
  return true;
}

function writeStderr(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
}

function displayPath(module: string): string {
  if (!module.startsWith("file:")) return module;
  const path = decodeURIComponent(new URL(module).pathname);
  let cwd: string;
  try {
    cwd = Deno.cwd();
  } catch {
    return path; // no read permission: the absolute path still names the suite
  }
  return path.startsWith(cwd + "/") ? path.slice(cwd.length + 1) : path;
}
