/**
 * image-proxy (docs/image-proxy.md): a read-only HTTP proxy for an image mirror in S3. The entry
 * point, the composition root and the settings, for tests and tools that run the proxy in-process.
 * The parts (object reads, the relay, the store) stay internal: their shapes follow the contract
 * and S3, and change with them.
 *
 * @example Run the proxy the way `image-proxy` does
 * ```ts ignore
 * import { serve, SETTINGS } from "@svc/image-proxy";
 *
 * const env = (name: string) => Deno.env.get(name);
 * const { values } = await SETTINGS.load({ args: ["--bucket", "mirror"], env });
 * const proxy = await serve(values, { env });
 * await proxy.shutdown();
 * ```
 *
 * @module
 */
export { main } from "./main.ts";
export { type RunningProxy, serve, type ServeOptions } from "./serve.ts";
export { SETTING_ROWS, SETTINGS, type Settings } from "./settings.ts";
export { IDENTITY } from "./identity.ts";
