/**
 * Configuration errors stop startup with one line naming the offending key. They are the kit's
 * one configuration error type, {@linkcode SettingsError}, whatever their source (flags, the
 * environment or the JSON configuration).
 *
 * @module
 */
import { SettingsError } from "@svc/shared/settings";

/**
 * A {@linkcode SettingsError} for JSON configuration key or flag `key` (e.g.
 * `tokenProvider.keyProvider.algorithm`); `reason` never quotes the value.
 */
export function configError(key: string, reason: string): SettingsError {
  return new SettingsError(key, `Invalid configuration: ${key}: ${reason}`);
}

/** Plain-object check used by the parsers. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
