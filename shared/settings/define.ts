/**
 * `defineSettings`: one declarative table per service, resolved per key with the precedence
 * flag > environment variable > configuration file > default.
 *
 * @module
 */
import { check, fromFile, fromText, type SettingRow } from "./convert.ts";
import { SettingsError } from "./error.ts";
import { flagName, parseFlags } from "./flags.ts";
import { settingsHelpText } from "./help.ts";
import type {
  EnvLookup,
  ResolvedSettings,
  SettingSource,
  SettingsShape,
  SettingValues,
} from "./types.ts";
import type { FileSchema } from "./yaml_file.ts";

/** Where the YAML configuration file is found: flag, then variable, then `defaultPath`. */
export interface ConfigFileOptions {
  /** Flag naming the file. @default {"config"} */
  flag?: string;
  /** Variable naming the file; `false` for none. @default {`<PREFIX>_CONFIG`} */
  env?: string | false;
  /** File read when neither flag nor variable names one; its absence is not an error. */
  defaultPath?: string;
}

/** Options of {@linkcode defineSettings}. */
export interface DefineSettingsOptions<T extends SettingsShape> {
  /** Prefix of the derived environment variables, e.g. `IMGPROXY` gives `IMGPROXY_BUCKET`. */
  prefix?: string;
  /** The rows, keyed by configuration-file key; their order is the `--help` order. */
  settings: T;
  /** Enables a YAML configuration file. */
  configFile?: ConfigFileOptions;
  /**
   * Settings a service cannot honour, by key, with the reason (e.g. a timeout the runtime cannot
   * enforce). Their flag, variable and file key are refused with the reason instead of being
   * accepted and ignored, and `--help` lists them.
   */
  unsupported?: Record<string, string>;
}

/** Inputs of {@linkcode SettingsTable.resolve}. */
export interface ResolveInput {
  /** Command-line arguments without the program name. */
  args?: readonly string[];
  /** Environment lookup. @default {no variables} */
  env?: EnvLookup;
  /** The configuration file's text, already read. */
  file?: { path: string; text: string };
}

/** Inputs of {@linkcode SettingsTable.load}. */
export interface LoadInput {
  /** Command-line arguments without the program name. */
  args?: readonly string[];
  /** Environment lookup. @default {no variables} */
  env?: EnvLookup;
  /** Reads the configuration file. @default {Deno.readTextFile} */
  readTextFile?: (path: string) => Promise<string>;
}

/** A defined settings table. */
export interface SettingsTable<T extends SettingsShape> {
  /** The normalized rows, in table order. */
  readonly rows: readonly SettingRow[];
  /** Resolves every setting from flags, variables, the given file text and defaults. */
  resolve(input?: ResolveInput): ResolvedSettings<T>;
  /** Like `resolve`, reading the configuration file the flag, variable or default path names. */
  load(input?: LoadInput): Promise<ResolvedSettings<T>>;
  /** The flag section of `--help`: every key with its flag, variables and default. */
  help(): string;
  /**
   * How an operator sets `key`: its flag and variables, e.g. `--addr / MOCK_OIDC_ADDR`, for
   * start-up errors that name the setting to change.
   *
   * @throws {TypeError} when the table has no such key.
   */
  names(key: string): string;
}

const KEY = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

function rowsOf(prefix: string | undefined, settings: SettingsShape): SettingRow[] {
  return Object.entries(settings).map(([key, spec]) => {
    if (!KEY.test(key)) throw new TypeError(`Cannot define setting "${key}": invalid key`);
    const derived = prefix ? [`${prefix}_${key.toUpperCase().replace(/[.\-]/g, "_")}`] : [];
    const env = spec.env === false ? [] : spec.env === undefined ? derived : [spec.env].flat();
    const flag = spec.flag === false ? undefined : flagName(spec.flag ?? key);
    return { key, spec, flag, env, file: spec.file ?? !spec.secret };
  });
}

function checkTable(rows: SettingRow[], configFlag: string | undefined): Set<string> {
  const sections = new Set<string>();
  const flags = new Set(configFlag ? [configFlag] : []);
  const envs = new Set<string>();
  for (const row of rows) {
    const parts = row.key.split(".");
    for (let i = 1; i < parts.length; i++) sections.add(parts.slice(0, i).join("."));
    const clash = (what: string) => new TypeError(`Cannot define setting "${row.key}": ${what}`);
    if (row.flag && flags.has(row.flag)) throw clash(`flag --${row.flag} is used twice`);
    if (row.flag) flags.add(row.flag);
    for (const name of row.env) {
      if (envs.has(name)) throw clash(`variable ${name} is used twice`);
      envs.add(name);
    }
    const def = row.spec.default;
    if (def !== undefined) {
      try {
        check(row, def, "its default");
      } catch (err) {
        throw clash((err as Error).message);
      }
    }
  }
  for (const row of rows) {
    if (sections.has(row.key)) {
      throw new TypeError(`Cannot define setting "${row.key}": it is also a section of keys`);
    }
  }
  return sections;
}

function unsupportedRows(unsupported: Record<string, string> = {}): SettingsShape {
  return Object.fromEntries(
    Object.entries(unsupported).map(([key, why]) => [key, { type: "string", help: why }]),
  );
}

/** Refuses a flag or variable of a setting the service cannot honour, giving the reason. */
function refuseUnsupported(
  retired: readonly SettingRow[],
  input: { flags: Map<string, string>; env: EnvLookup },
): void {
  for (const row of retired) {
    const via = row.flag && input.flags.has(row.flag)
      ? `flag --${row.flag}`
      : row.env.find((name) => input.env(name) !== undefined);
    if (via === undefined) continue;
    const where = via.startsWith("flag") ? via : `environment variable ${via}`;
    throw new SettingsError(
      row.key,
      `Cannot start: setting "${row.key}" (${where}) is not supported: ${row.spec.help}`,
    );
  }
}

function sourcesOf(row: SettingRow, withFile: boolean): string {
  const ways = [
    ...(row.flag ? [`flag --${row.flag}`] : []),
    ...row.env.map((name) => `environment variable ${name}`),
    ...(withFile && row.file ? [`key ${row.key} in the configuration file`] : []),
  ];
  return `set it with ${ways.join(" or ")}`;
}

/**
 * Defines a service's settings. Each value's TypeScript type comes from its row (`int` →
 * `number`, `string` with `choices` → their union, no default and not `required` → `| undefined`),
 * so services read `values["proxy.shutdown_grace"]` without casts. Keys are configuration-file
 * keys; the flag is the key with `_` written as `-` (`--proxy.shutdown-grace`; `_` is accepted
 * too) and the variable is `<PREFIX>_<KEY>` with `.` written as `_`. Durations are milliseconds.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineSettings, loadSettingsFileDecoder } from "@svc/shared/settings";
 *
 * await loadSettingsFileDecoder(); // resolve() with file text (load() does it by itself)
 * const settings = defineSettings({
 *   prefix: "IMGPROXY",
 *   configFile: { flag: "config" },
 *   settings: {
 *     "bucket": { type: "string", required: true, help: "S3 bucket of the mirror" },
 *     "proxy.shutdown_grace": { type: "duration", default: 30_000, help: "drain time" },
 *     "proxy.max_streams": { type: "int", default: 64, min: 1, help: "concurrent downloads" },
 *     "log.level": { type: "string", choices: ["info", "debug"], default: "info", help: "level" },
 *   },
 * });
 * const { values, sources } = settings.resolve({
 *   args: ["--proxy.shutdown-grace=1m"],
 *   env: (name) => ({ IMGPROXY_PROXY_MAX_STREAMS: "8" } as Record<string, string>)[name],
 *   file: { path: "proxy.yaml", text: "bucket: mirror\nproxy:\n  max_streams: 16\n" },
 * });
 * const grace: number = values["proxy.shutdown_grace"];
 * const level: "info" | "debug" = values["log.level"];
 * assert.equal(grace, 60_000);
 * assert.equal(values["proxy.max_streams"], 8);
 * assert.equal(values.bucket, "mirror");
 * assert.equal(level, "info");
 * assert.deepEqual(sources, {
 *   "bucket": "file",
 *   "proxy.shutdown_grace": "flag",
 *   "proxy.max_streams": "env",
 *   "log.level": "default",
 * });
 * ```
 * @throws {TypeError} when the table itself is inconsistent (bad key, flag or variable used
 * twice, a default its own row rejects, a key that is also a section).
 */
export function defineSettings<const T extends SettingsShape>(
  options: DefineSettingsOptions<T>,
): SettingsTable<T> {
  const { prefix, configFile } = options;
  const rows = rowsOf(prefix, options.settings);
  const configFlag = configFile ? flagName(configFile.flag ?? "config") : undefined;
  const configEnv = configFile?.env === false
    ? undefined
    : configFile?.env ?? (configFile && prefix ? `${prefix}_CONFIG` : undefined);
  const sections = checkTable(rows, configFlag);
  const known = new Set(rows.flatMap((r) => r.flag ? [r.flag] : []));
  if (configFlag) known.add(configFlag);
  const retired = rowsOf(prefix, unsupportedRows(options.unsupported));
  for (const row of retired) {
    if (row.flag && known.has(row.flag)) {
      throw new TypeError(`Cannot define setting "${row.key}": it is both defined and unsupported`);
    }
    if (row.flag) known.add(row.flag);
  }
  const booleans = new Set(rows.flatMap((r) => r.flag && r.spec.type === "bool" ? [r.flag] : []));
  const lists = new Set(rows.flatMap((r) => r.flag && r.spec.type === "list" ? [r.flag] : []));
  const schema: FileSchema = {
    rows: new Map(rows.map((r) => [r.key, r])),
    sections,
    fileKey: configFlag ?? "config",
  };

  function resolve(input: ResolveInput = {}): ResolvedSettings<T> {
    const { args = [], env = () => undefined, file } = input;
    const { flags, positionals } = parseFlags(args, known, booleans, lists);
    refuseUnsupported(retired, { flags, env });
    const fromFileText = file ? fileDecoder()(file.text, file.path, schema) : new Map();
    const values: Record<string, unknown> = {};
    const sources: Record<string, SettingSource> = {};
    for (const row of rows) {
      const flag = row.flag === undefined ? undefined : flags.get(row.flag);
      const envName = row.env.find((name) => env(name) !== undefined);
      if (flag !== undefined) {
        values[row.key] = fromText(row, flag, `flag --${row.flag}`);
        sources[row.key] = "flag";
      } else if (envName !== undefined) {
        values[row.key] = fromText(row, env(envName)!, `environment variable ${envName}`);
        sources[row.key] = "env";
      } else if (fromFileText.has(row.key)) {
        const where = `configuration file ${file!.path}`;
        values[row.key] = fromFile(row, fromFileText.get(row.key), where);
        sources[row.key] = "file";
      } else if (row.spec.required) {
        throw new SettingsError(
          row.key,
          `Cannot start: setting "${row.key}" is required (${sourcesOf(row, !!configFlag)})`,
        );
      } else {
        const def = row.spec.default;
        values[row.key] = Array.isArray(def) ? [...def] : def;
        sources[row.key] = "default";
      }
    }
    return {
      values: values as SettingValues<T>,
      sources: sources as ResolvedSettings<T>["sources"],
      positionals,
      ...(file ? { configFile: file.path } : {}),
    };
  }

  async function load(input: LoadInput = {}): Promise<ResolvedSettings<T>> {
    const { args = [], env = () => undefined } = input;
    const read = input.readTextFile ?? ((path: string) => Deno.readTextFile(path));
    if (!configFlag) return resolve({ args, env });
    const explicit = parseFlags(args, known, booleans, lists).flags.get(configFlag) ??
      (configEnv ? env(configEnv) : undefined);
    const path = explicit || configFile?.defaultPath;
    if (!path) return resolve({ args, env });
    let text: string;
    try {
      text = await read(path);
    } catch (err) {
      if (!explicit && err instanceof Deno.errors.NotFound) return resolve({ args, env });
      throw new SettingsError(
        configFlag,
        `Cannot read configuration file ${path}: ${(err as Error).name}`,
      );
    }
    await loadSettingsFileDecoder();
    return resolve({ args, env, file: { path, text } });
  }

  const help = () =>
    settingsHelpText(rows, {
      file: configFlag ? { ...configFile, flag: configFlag, env: configEnv } : undefined,
      unsupported: retired,
    });
  function names(key: string): string {
    const row = rows.find((r) => r.key === key);
    if (!row) throw new TypeError(`Cannot name setting "${key}": no such key`);
    return [...(row.flag ? [`--${row.flag}`] : []), ...row.env].join(" / ") || `key ${key}`;
  }
  return { rows, resolve, load, help, names };
}

// The YAML parser is a large package (hundreds of ms of module loading on a busy machine): loaded
// only when a configuration file is read, so a service started from flags and variables alone
// never pays for it.
let yamlFile: typeof import("./yaml_file.ts") | undefined;

/**
 * Loads the configuration-file decoder. `load()` does it by itself when there is a file; call it
 * once before handing file text to the synchronous `resolve()`.
 */
export async function loadSettingsFileDecoder(): Promise<void> {
  yamlFile ??= await import("./yaml_file.ts");
}

function fileDecoder(): typeof import("./yaml_file.ts").decodeSettingsFile {
  if (!yamlFile) {
    throw new Error("Cannot decode a configuration file: call loadSettingsFileDecoder() first");
  }
  return yamlFile.decodeSettingsFile;
}
