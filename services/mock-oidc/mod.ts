/**
 * mock-oidc as a library: its entry point, its composition root and its settings, for tests and
 * tools that run the provider in-process.
 *
 * @example Run mock-oidc in-process on a free loopback port
 * ```ts ignore
 * import { serve, SETTINGS } from "@svc/mock-oidc";
 *
 * const { values } = SETTINGS.resolve({ args: ["--addr", "127.0.0.1:0", "--metrics-addr", ""] });
 * const server = await serve(values);
 * console.log(`${server.urls.api}/default/.well-known/openid-configuration`);
 * await server.shutdown();
 * ```
 *
 * @module
 */
export { main } from "./main.ts";
export { serve, type ServeOptions } from "./serve.ts";
export { SETTING_ROWS, SETTINGS, type Settings } from "./settings.ts";
export { IDENTITY } from "./identity.ts";
