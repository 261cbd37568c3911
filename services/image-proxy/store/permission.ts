/**
 * A storage host outside the proxy's permissions is a configuration error, and the operator must
 * learn which host and how to grant it: the compiled binary's network grant is baked in from
 * `IMGPROXY_ALLOW_NET` (`deploy/services.ts`), a run from source takes `--allow-net`.
 *
 * @module
 */
import { SettingsError } from "@svc/shared/settings";

/**
 * How to grant network access to `hostPort`.
 *
 * @example Usage
 * ```ts
 * import { netGrantHint } from "./permission.ts";
 * netGrantHint("127.0.0.1:9000");
 * // "add 127.0.0.1:9000 to IMGPROXY_ALLOW_NET when compiling (deno task compile), or to
 * //  --allow-net when running from source"
 * ```
 */
export function netGrantHint(hostPort: string): string {
  return `add ${hostPort} to IMGPROXY_ALLOW_NET when compiling (deno task compile), or to ` +
    `--allow-net when running from source`;
}

const REQUIRES = /Requires (\w+) access to "([^"]+)"/;

/**
 * What a permission the process lacks kept a storage call from doing, naming the host or path
 * and how to grant it; `undefined` when `err` (or one of its causes) is no NotCapable.
 *
 * @example Usage
 * ```ts
 * import { deniedPermission } from "./permission.ts";
 * const err = new Deno.errors.NotCapable('Requires net access to "s3.example:9000", run again');
 * deniedPermission(err); // "the network permission does not cover s3.example:9000 (add …)"
 * ```
 */
export function deniedPermission(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (!(e instanceof Deno.errors.NotCapable)) continue;
    const m = REQUIRES.exec(e.message);
    if (!m) return "a permission is missing (NotCapable)";
    const [, kind, target] = m;
    if (kind === "net") {
      return `the network permission does not cover ${target} (${netGrantHint(target)})`;
    }
    return `the ${kind} permission does not cover ${target} (run with --allow-${kind}=${target})`;
  }
  return undefined;
}

/**
 * Checks at start-up that the configured storage endpoint is inside the network grant.
 *
 * @throws {SettingsError} one line naming the host:port, how to grant it and the setting that
 * points there.
 */
export function checkStorageGrant(
  endpoint: string | undefined,
  setting: string,
  key: "s3.endpoint" | "secondary.endpoint" = "s3.endpoint",
): void {
  if (!endpoint) return; // AWS itself: *.amazonaws.com is in the default grant
  const url = new URL(endpoint);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const hostPort = `${url.hostname}:${port}`;
  const state = Deno.permissions.querySync({ name: "net", host: hostPort }).state;
  if (state === "granted") return;
  throw new SettingsError(
    key,
    `Cannot use the store at ${hostPort}: the network permission does not cover it ` +
      `(${netGrantHint(hostPort)}; or change ${setting})`,
  );
}
