/**
 * Configuration errors stop startup with one line naming the offending key.
 *
 * @module
 */

/** Invalid configuration: `key` names the setting (e.g. `tokenProvider.keyProvider.algorithm`). */
export class ConfigError extends Error {
  readonly key: string;
  constructor(key: string, reason: string) {
    super(`Invalid configuration: ${key}: ${reason}`);
    this.name = "ConfigError";
    this.key = key;
  }
}

/** Plain-object check used by the parsers. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
