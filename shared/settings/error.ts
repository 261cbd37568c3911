/**
 * The one error type of configuration: flags, environment variables, configuration files and
 * service-specific configuration (such as mock-oidc's JSON configuration) all throw it.
 *
 * @module
 */

/**
 * A setting or configuration key could not be read or is not acceptable. `key` names it (a
 * settings key such as `proxy.shutdown_grace`, a flag such as `--tls-cert-file`, or a path in a
 * service's own configuration document). The message never contains the offending value, so a
 * mistyped secret cannot leak into logs or terminals.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { SettingsError } from "@svc/shared/settings";
 *
 * const err = new SettingsError("proxy.max_streams", "Cannot start: proxy.max_streams is 0");
 * assert.equal(err.key, "proxy.max_streams");
 * assert.equal(err.name, "SettingsError");
 * ```
 */
export class SettingsError extends Error {
  /** The setting, flag or configuration path at fault. */
  readonly key: string;
  /**
   * Creates the error.
   *
   * @param key The setting, flag or configuration path at fault.
   * @param message One line naming `key`, never its value.
   */
  constructor(key: string, message: string) {
    super(message);
    this.name = "SettingsError";
    this.key = key;
  }
}
