/**
 * The shape of a settings table and the TypeScript types inferred from it.
 *
 * @module
 */

/** Looks up an environment variable, e.g. `(name) => Deno.env.get(name)`. */
export type EnvLookup = (name: string) => string | undefined;

/** Kinds of values a setting can hold. */
export type SettingType = "string" | "int" | "int64" | "float" | "bool" | "duration" | "list";

/** Where a resolved value came from. */
export type SettingSource = "flag" | "env" | "file" | "default";

/** What every row of a settings table can say, whatever its type. */
export interface SettingBase {
  /** One-line description for `--help`. */
  help: string;
  /**
   * Flag name without the leading dashes; `false` for no flag.
   * @default {the key with `_` written as `-`, e.g. `proxy.shutdown-grace`}
   */
  flag?: string | false;
  /**
   * Environment variable(s); the first one that is set wins; `false` for none.
   * @default {`<PREFIX>_<KEY>` with `.` and `-` written as `_`, when the table has a prefix}
   */
  env?: string | readonly string[] | false;
  /**
   * Whether the configuration file may set it.
   * @default {true, except for secrets: credentials never come from the file unless allowed}
   */
  file?: boolean;
  /** The value is never printed: `--help` shows no default, errors never quote it. */
  secret?: boolean;
  /** Resolution fails when no source sets it (help shows `required`). */
  required?: boolean;
}

/** A text setting, optionally limited to `choices`. */
export interface StringSetting extends SettingBase {
  /** Kind of the setting. */
  type: "string";
  /** Default value. */
  default?: string;
  /** The values allowed; the value's type is their union. */
  choices?: readonly string[];
  /**
   * Maps a raw value to its canonical form before `choices` are checked (e.g. upstream's
   * `INFO` or `TRACE` to `info` or `debug`); must return one of `choices` for values it accepts.
   */
  normalize?: (value: string) => string;
  /** Returns why the value is not acceptable; the reason must not quote the value. */
  validate?: (value: string) => string | undefined;
}

/** An integer, a number, or a Go duration (`1m30s`) held in milliseconds. */
export interface NumberSetting extends SettingBase {
  /** Kind of the setting. */
  type: "int" | "float" | "duration";
  /** Default value (durations in milliseconds). */
  default?: number;
  /** Inclusive lower bound (durations in milliseconds). */
  min?: number;
  /** Inclusive upper bound (durations in milliseconds). */
  max?: number;
  /** Returns why the value is not acceptable; the reason must not quote the value. */
  validate?: (value: number) => string | undefined;
}

/**
 * A signed 64-bit integer held exactly as a `bigint` (ids a spec types int64, which can exceed
 * 2^53): decimal digits in flags, variables and the file, always within [-2^63, 2^63-1].
 */
export interface Int64Setting extends SettingBase {
  /** Kind of the setting. */
  type: "int64";
  /** Default value. */
  default?: bigint;
  /** Inclusive lower bound. */
  min?: bigint;
  /** Inclusive upper bound (at most 2^63-1 whatever is set). */
  max?: bigint;
  /** Returns why the value is not acceptable; the reason must not quote the value. */
  validate?: (value: bigint) => string | undefined;
}

/** `true` or `false`; a bare flag (`--enabled`) means `true`. */
export interface BoolSetting extends SettingBase {
  /** Kind of the setting. */
  type: "bool";
  /** Default value. */
  default?: boolean;
}

/** A list of strings: comma-separated in flags and variables, a sequence in the file. */
export interface ListSetting extends SettingBase {
  /** Kind of the setting. */
  type: "list";
  /** Default value. */
  default?: readonly string[];
  /** Returns why the value is not acceptable; the reason must not quote the value. */
  validate?: (value: string[]) => string | undefined;
}

/** One row of a settings table. */
export type Setting = StringSetting | NumberSetting | Int64Setting | BoolSetting | ListSetting;

/** The settings of a service, keyed by their configuration-file key (`proxy.shutdown_grace`). */
export type SettingsShape = Record<string, Setting>;

/** The type of a setting's value, before optionality. */
export type BaseValue<S> = S extends { type: "string"; choices: readonly (infer C)[] } ? C
  : S extends { type: "string" } ? string
  : S extends { type: "bool" } ? boolean
  : S extends { type: "list" } ? string[]
  : S extends { type: "int64" } ? bigint
  : number;

/** The type of a resolved setting: `undefined` only when it has no default and is optional. */
export type SettingValue<S> = S extends { default: unknown } | { required: true } ? BaseValue<S>
  : BaseValue<S> | undefined;

/** The resolved values of a table, one typed property per key. */
export type SettingValues<T extends SettingsShape> = {
  -readonly [K in keyof T]: SettingValue<T[K]>;
};

/** The outcome of resolving a table. */
export interface ResolvedSettings<T extends SettingsShape> {
  /** Every setting's value, typed from the table. */
  values: SettingValues<T>;
  /** Where each value came from. */
  sources: { [K in keyof T]: SettingSource };
  /** Arguments that are not flags (subcommands, file names), in order. */
  positionals: string[];
  /** Path of the configuration file that was read, if any. */
  configFile?: string;
}
