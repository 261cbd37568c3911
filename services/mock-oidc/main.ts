/**
 * mock-oidc's entry: `--help`, the settings and upstream's JSON configuration, then
 * {@linkcode serve} until the shutdown. Invalid configuration stops startup with one line naming
 * the key (exit code 2, through the kit's `runMain`).
 *
 * @module
 */

import { runMain, type ServiceMain } from "@svc/shared/main";
import { helpRequested } from "@svc/shared/settings";
import { IDENTITY } from "./identity.ts";
import { serve } from "./serve.ts";
import { SETTINGS } from "./settings.ts";

/**
 * Resolves configuration, starts the listeners and waits until shutdown; `--help` prints the
 * settings. Resolves to the exit code.
 *
 * @throws {SettingsError} naming the setting or configuration key that is not acceptable.
 */
export const main: ServiceMain = async (args, env, io): Promise<number> => {
  if (helpRequested(args)) {
    io.out(USAGE + SETTINGS.help());
    return 0;
  }
  const { values } = SETTINGS.resolve({ args, env });
  const server = await serve(values, { env });
  await server.finished;
  return 0;
};

const USAGE = `Usage: mock-oidc [flags]

A test-only OpenID Connect / OAuth 2.0 provider with a /_mock control plane.
Every flag also reads MOCK_OIDC_<KEY> (flag > environment > default); the JSON configuration
comes from JSON_CONFIG, JSON_CONFIG_PATH or ./config.json.

Flags:
`;

if (import.meta.main) await runMain(main, { name: "mock-oidc", identity: IDENTITY });
