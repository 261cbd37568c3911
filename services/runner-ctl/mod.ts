/**
 * runner-ctl as a library: the entry point, the configuration loader and the controller run
 * mode, for tests and tools that drive runner-ctl in-process. The controller's parts (GitHub
 * clients, Incus clients, the runner pool) stay internal: their shapes follow the two peers'
 * protocols and change with them.
 *
 * @example Resolve the configuration the way `runner-ctl` does
 * ```ts ignore
 * import { loadConfig } from "@svc/runner-ctl";
 *
 * const config = await loadConfig({ args: Deno.args, env: (name) => Deno.env.get(name) });
 * console.log(config.configUrl.scope, config.values["github.scale_set"]);
 * ```
 *
 * @module
 */
export { main } from "./main.ts";
export { runController, type RunDeps } from "./serve.ts";
export { loadConfig, type LoadConfigInput, type RunnerCtlConfig } from "./load_settings.ts";
export { type RunnerCtlValues, SETTINGS } from "./settings.ts";
export type { ConfigUrl } from "./github/config_url.ts";
export type { GithubCredentials } from "./github/auth.ts";
export { BUILD, versionLine } from "./identity.ts";
