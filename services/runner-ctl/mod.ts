/**
 * runner-ctl as a library: the entry point, the settings and the controller's composition root,
 * for tests and tools that drive runner-ctl in-process. The controller's parts (GitHub clients,
 * Incus clients, the runner pool) stay internal: their shapes follow the two peers' protocols and
 * change with them. runner-ctl has no HTTP surface, so it has no route table.
 *
 * @example Resolve the settings the way `runner-ctl` does
 * ```ts ignore
 * import { loadSettings } from "@svc/runner-ctl";
 *
 * const settings = await loadSettings({ args: Deno.args, env: (name) => Deno.env.get(name) });
 * console.log(settings.configUrl.scope, settings.values["github.scale_set"]);
 * ```
 *
 * @module
 */
export { main } from "./main.ts";
export {
  type ControllerReport,
  type RunningController,
  serve,
  type ServeOptions,
} from "./serve.ts";
export { loadSettings, type LoadSettingsInput } from "./load_settings.ts";
export { SETTING_ROWS, SETTINGS, type Settings } from "./settings.ts";
export type { ConfigUrl } from "./github/config_url.ts";
export type { GithubCredentials } from "./github/auth.ts";
export { IDENTITY } from "./identity.ts";
