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
 * A list flag may be repeated and its values accumulate (`--role user --role admin` is
 * `user,admin`); any other flag given twice is refused, so a command line never silently keeps
 * only its last value.
 *
 * @param booleans Normalized names of the flags that take no value.
 * @param known Every normalized flag name.
 * @param lists Normalized names of the list flags (repeatable).
 * @throws {SettingsError} on an unknown flag, a flag without its value, or a repeated scalar flag.
 */
export function parseFlags(
  args: readonly string[],
  known: ReadonlySet<string>,
  booleans: ReadonlySet<string>,
  lists: ReadonlySet<string> = new Set(),
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
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (booleans.has(name)) value = "true";
    else if (i + 1 < args.length) value = args[++i];
    else throw new SettingsError(`--${name}`, `Cannot parse flags: flag "--${name}" needs a value`);
    const before = flags.get(name);
    if (before === undefined) flags.set(name, value);
    else if (lists.has(name)) flags.set(name, `${before},${value}`);
    else {
      throw new SettingsError(
        `--${name}`,
        `Cannot parse flags: flag "--${name}" is given more than once (it takes one value)`,
      );
    }
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
