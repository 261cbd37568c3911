/**
 * Command-line parsing for a settings table: `--name value`, `--name=value`, `-name value`, bare
 * booleans, `--` ending the flags. `_` and `-` are interchangeable in flag names, so
 * `--proxy.shutdown_grace` and `--proxy.shutdown-grace` are the same flag.
 *
 * @module
 */
import { SettingsError } from "./error.ts";

/** Normalizes a flag name so `_` and `-` spell the same flag. */
export function flagName(name: string): string {
  return name.replaceAll("_", "-");
}

/**
 * Splits arguments into flag values (by normalized flag name) and positionals.
 *
 * @param booleans Normalized names of the flags that take no value.
 * @param known Every normalized flag name.
 * @throws {SettingsError} on an unknown flag or a flag without its value.
 */
export function parseFlags(
  args: readonly string[],
  known: ReadonlySet<string>,
  booleans: ReadonlySet<string>,
): { flags: Map<string, string>; positionals: string[] } {
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const name = flagName(eq < 0 ? body : body.slice(0, eq));
    if (!known.has(name)) {
      throw new SettingsError(`--${name}`, `Cannot parse flags: unknown flag "--${name}"`);
    }
    if (eq >= 0) flags.set(name, body.slice(eq + 1));
    else if (booleans.has(name)) flags.set(name, "true");
    else if (i + 1 < args.length) flags.set(name, args[++i]);
    else throw new SettingsError(`--${name}`, `Cannot parse flags: flag "--${name}" needs a value`);
  }
  return { flags, positionals };
}

/**
 * Whether the arguments ask for help (`--help` or `-h` before any `--`).
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { helpRequested } from "@svc/shared/settings";
 *
 * assert.equal(helpRequested(["serve", "--help"]), true);
 * assert.equal(helpRequested(["--", "-h"]), false);
 * ```
 */
export function helpRequested(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h" || arg === "-help") return true;
  }
  return false;
}
