/**
 * Composes the HTTP surface of mock-oidc: the per-issuer protocol namespace (and, added by the
 * control-plane work, `/_mock` and the operational routes).
 *
 * @module
 */

import type { Core } from "./core.ts";
import { createProtocolHandler } from "./protocol/router.ts";

/** Dependencies of {@linkcode createApp}. */
export interface AppDeps {
  core: Core;
}

/** Build the API handler. */
export function createApp(deps: AppDeps): (req: Request) => Promise<Response> {
  const protocol = createProtocolHandler(deps.core.protocol);
  return async (req) => await protocol(req);
}
