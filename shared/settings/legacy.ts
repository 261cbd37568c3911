/**
 * First-edition settings (an array of rows, values typed `unknown`), kept while services move to
 * `defineSettings`.
 *
 * @module
 */
import { formatDuration, parseDuration } from "../duration.ts";
import { SettingsError } from "./error.ts";
import type { SettingSource, SettingType } from "./types.ts";

/**
 * One row of a service's settings table (first edition).
 * @deprecated Use `defineSettings`; removed once every service has moved.
 */
export interface SettingSpec {
  /** Flag name without the leading dashes, e.g. `read-timeout`. */
  name: string;
  /** Kind of the value. */
  type: SettingType;
  /** Value used when no source sets it (durations in milliseconds, lists as arrays). */
  default: unknown;
  /** Environment variable(s) feeding this setting; the first one that is set wins. */
  env?: string | string[];
  /** One-line description for `--help`. */
  help: string;
  /** Allowed values of a string setting. */
  choices?: readonly string[];
  /** Inclusive lower bound of a numeric or duration (ms) setting. */
  min?: number;
  /** Inclusive upper bound of a numeric or duration (ms) setting. */
  max?: number;
  /** Marks a value that must never be printed (help shows no default). */
  secret?: boolean;
  /** Extra validation; returns the reason when the value is not acceptable. */
  validate?: (value: unknown) => string | undefined;
}

/** Inputs of {@linkcode resolveSettings}. */
export interface SettingsInput {
  /** Command-line arguments (without the program name). */
  args?: readonly string[];
  /** Environment lookup, e.g. `(k) => Deno.env.get(k)`. */
  env?: (name: string) => string | undefined;
  /** Values from a config file, keyed by setting name (typed values or strings). */
  file?: Record<string, unknown>;
}

/** The resolved settings. */
export interface LegacyResolvedSettings {
  /** Every setting's value, by name. */
  values: Record<string, unknown>;
  /** Where each value came from. */
  sources: Record<string, SettingSource>;
  /** Arguments that are not flags (subcommands, file names), in order. */
  positionals: string[];
}

function convert(spec: SettingSpec, raw: unknown, where: string): unknown {
  const fail = (why: string) =>
    new SettingsError(spec.name, `Cannot read setting "${spec.name}" from ${where}: ${why}`);
  let value: unknown;
  switch (spec.type) {
    case "string":
      if (typeof raw !== "string") throw fail("expected a string");
      value = raw;
      if (spec.choices && !spec.choices.includes(raw)) {
        throw fail(`expected one of ${spec.choices.join(", ")}`);
      }
      break;
    case "bool":
      if (typeof raw === "boolean") value = raw;
      else if (raw === "true" || raw === "false") value = raw === "true";
      else throw fail("expected true or false");
      break;
    case "int":
      if (typeof raw === "number" && Number.isSafeInteger(raw)) value = raw;
      else if (typeof raw === "string" && /^[-+]?\d{1,15}$/.test(raw)) value = Number(raw);
      else throw fail("expected an integer");
      break;
    case "float":
      if (typeof raw === "number" && Number.isFinite(raw)) value = raw;
      else if (typeof raw === "string" && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) {
        value = Number(raw);
      } else throw fail("expected a number");
      break;
    case "duration":
      if (typeof raw !== "string") throw fail("expected a Go duration such as 5s or 1m30s");
      try {
        value = parseDuration(raw);
      } catch {
        throw fail("expected a Go duration such as 5s or 1m30s");
      }
      break;
    case "list":
      if (Array.isArray(raw) && raw.every((v) => typeof v === "string")) value = raw;
      else if (typeof raw === "string") {
        value = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
      } else throw fail("expected a comma-separated list");
      break;
  }
  if (typeof value === "number") {
    if (spec.min !== undefined && value < spec.min) throw fail(`must be at least ${spec.min}`);
    if (spec.max !== undefined && value > spec.max) throw fail(`must be at most ${spec.max}`);
  }
  const reason = spec.validate?.(value);
  if (reason) throw fail(reason);
  return value;
}

function parseFlags(specs: readonly SettingSpec[], args: readonly string[]) {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const flags = new Map<string, string | boolean>();
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
    const name = eq < 0 ? body : body.slice(0, eq);
    const spec = byName.get(name);
    if (!spec) {
      throw new SettingsError(`--${name}`, `Cannot parse flags: unknown flag "--${name}"`);
    }
    if (eq >= 0) flags.set(name, body.slice(eq + 1));
    else if (spec.type === "bool") flags.set(name, true);
    else if (i + 1 < args.length) flags.set(name, args[++i]);
    else throw new SettingsError(`--${name}`, `Cannot parse flags: flag "--${name}" needs a value`);
  }
  return { flags, positionals };
}

/**
 * @deprecated Use `defineSettings`.
 *
 * Resolves every setting of a table from flags, environment, config file and defaults.
 *
 * @example Usage
 * ```ts
 * import { resolveSettings, type SettingSpec } from "@svc/shared/settings";
 * const table: SettingSpec[] = [
 *   { name: "addr", type: "string", default: ":8080", env: "SVC_ADDR", help: "listen address" },
 *   { name: "read-timeout", type: "duration", default: 5000, help: "whole-request read limit" },
 * ];
 * const { values } = resolveSettings(table, { args: ["--read-timeout=90s"], env: () => undefined });
 * values["read-timeout"]; // 90000
 * ```
 * @throws {SettingsError} naming the setting when a flag is unknown or a value is invalid.
 */
export function resolveSettings(
  specs: readonly SettingSpec[],
  input: SettingsInput = {},
): LegacyResolvedSettings {
  const { args = [], env = () => undefined, file = {} } = input;
  const { flags, positionals } = parseFlags(specs, args);
  const values: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  for (const spec of specs) {
    const flag = flags.get(spec.name);
    if (flag !== undefined) {
      values[spec.name] = convert(spec, flag, `flag --${spec.name}`);
      sources[spec.name] = "flag";
      continue;
    }
    const envName = [spec.env ?? []].flat().find((n) => env(n) !== undefined);
    if (envName) {
      values[spec.name] = convert(spec, env(envName), `environment variable ${envName}`);
      sources[spec.name] = "env";
      continue;
    }
    if (file[spec.name] !== undefined) {
      values[spec.name] = convert(spec, file[spec.name], `config file key "${spec.name}"`);
      sources[spec.name] = "file";
      continue;
    }
    values[spec.name] = spec.default;
    sources[spec.name] = "default";
  }
  return { values, sources, positionals };
}

/**
 * @deprecated Use `SettingsTable.help`.
 *
 * Renders a `--help` text from a settings table.
 *
 * @example Usage
 * ```ts
 * import { settingsHelp } from "@svc/shared/settings";
 * settingsHelp([{ name: "addr", type: "string", default: ":8080", help: "listen address" }]);
 * ```
 */
export function settingsHelp(specs: readonly SettingSpec[]): string {
  return specs.map((s) => {
    const env = [s.env ?? []].flat();
    const shown = s.type === "duration" && typeof s.default === "number"
      ? formatDuration(s.default)
      : JSON.stringify(s.default);
    const def = s.secret ? "" : ` (default ${shown})`;
    return `  --${s.name} ${s.type}\n      ${s.help}${def}${
      env.length ? `; env ${env.join(", ")}` : ""
    }`;
  }).join("\n");
}
