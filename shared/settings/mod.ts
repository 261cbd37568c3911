/**
 * Typed settings from one declarative table per service: each key resolves on its own from a
 * flag, an environment variable, a strict YAML configuration file or its default, in that order.
 * Errors are {@linkcode SettingsError}s naming the key and the source, never the value, so a
 * mistyped secret cannot leak into logs.
 *
 * Permissions: reading a configuration file needs read access to it and no environment grant.
 * (The `yaml` package reads `LOG_TOKENS` and `LOG_STREAM` while parsing, to print every token,
 * values included; the loader parses with an empty `process.env`, so neither can fail with
 * `NotCapable` nor switch the dump on.)
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineSettings } from "@svc/shared/settings";
 *
 * const settings = defineSettings({
 *   prefix: "SVC",
 *   settings: {
 *     "addr": { type: "string", default: ":8080", help: "listen address" },
 *     "read_timeout": { type: "duration", default: 5_000, help: "whole-request read limit" },
 *   },
 * });
 * const { values } = settings.resolve({ args: ["--read-timeout=90s"] });
 * assert.equal(values.read_timeout, 90_000);
 * ```
 * @module
 */
export * from "./types.ts";
export { SettingsError } from "./error.ts";
export {
  type ConfigFileOptions,
  defineSettings,
  type DefineSettingsOptions,
  type LoadInput,
  loadSettingsFileDecoder,
  type ResolveInput,
  type SettingsTable,
} from "./define.ts";
export type { SettingRow } from "./convert.ts";
export { helpRequested } from "./flags.ts";
