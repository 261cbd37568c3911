/**
 * mock-oidc as a library: its entry point, its composition root and its settings, for tests and
 * tools that run the provider in-process (`MockOidc`, which can also attach to a running one).
 *
 * @example A test against mock-oidc started in-process on a free loopback port
 * ```ts ignore
 * import { MockOidc } from "@svc/mock-oidc";
 *
 * await using oidc = await MockOidc.start();
 * const { token } = await oidc.mint({ issuer: "default", subject: "alice" });
 * await oidc.injectFault({ endpoint: "token", kind: "oauth_error", error: "invalid_grant" });
 * console.log(oidc.discoveryUrl("default"), token);
 * ```
 *
 * @module
 */
export { main } from "./main.ts";
export {
  type Algorithm,
  type AttachOptions,
  type CapturedRequest,
  type CaptureEndpoint,
  type ClockState,
  type Fault,
  type FaultEndpoint,
  type FaultRequest,
  type KeyInfo,
  type MintedToken,
  type MintRequest,
  MockOidc,
  MockOidcError,
  type RequestMapping,
  type Scenario,
  type StartOptions,
} from "./library.ts";
export { serve, type ServeOptions } from "./serve.ts";
// The lists the public types above are made from, and the captured DPoP note's type.
export { ALGORITHMS } from "./keys/algorithms.ts";
export { FAULT_ENDPOINTS, FAULT_KINDS } from "./protocol/fault_queue.ts";
export type { DpopNote } from "./protocol/dpop_challenges.ts";
export { SETTING_ROWS, SETTINGS, type Settings } from "./settings.ts";
export { IDENTITY } from "./identity.ts";
