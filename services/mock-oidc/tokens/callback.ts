/**
 * Token callbacks (a scenario's shape, docs/mock-oidc.md#control-plane) and the ONE place that
 * decides which callback shapes a token response: an enqueued one-shot scenario, else the first
 * configured `tokenCallbacks` entry of the issuer, else none (the built-in default behaviour).
 *
 * @module
 */

/** Per-request conditional override (upstream `requestMappings[]`). */
export interface RequestMapping {
  /** Request parameter to match (upstream `requestParam`). */
  param: string;
  /** `*` for any value, an exact value, or a full-string regular expression. */
  match: string;
  /** JWS `typ` applied on match. */
  typeHeader?: string;
  /** Claims applied on match; strings may hold `${name}` templates. */
  claims?: Record<string, unknown>;
}

/** A one-shot scenario: shapes the next token issued for its issuer, by any grant. */
export interface TokenCallback {
  /** The issuer id. */
  issuer: string;
  /** `sub`. */
  subject?: string;
  /** The access token's `aud`; an explicit empty list is kept. */
  audience?: string[];
  /** Further claims. */
  claims?: Record<string, unknown>;
  /** The JWS `typ`. */
  typ?: string;
  /** Lifetime. */
  expirySeconds?: number;
  /** Claims by request parameter. */
  requestMappings?: RequestMapping[];
}

/** Where one-shot scenarios come from (the control plane's ScenarioQueue implements it). */
export interface CallbackSource {
  /** Remove and return the scenario for `issuerId`, if one is due. */
  take(issuerId: string): TokenCallback | undefined;
}

/** A source that never has a scenario. */
export const NO_SCENARIOS: CallbackSource = { take: () => undefined };

/**
 * Resolve the callback for one token response. Call it once per response: the access token
 * and id token of one response share the result, so a scenario is consumed exactly once.
 */
export function resolveCallback(
  issuerId: string,
  sources: { callbacks: CallbackSource; configured: readonly TokenCallback[] },
): TokenCallback | undefined {
  return sources.callbacks.take(issuerId) ??
    sources.configured.find((callback) => callback.issuer === issuerId);
}
