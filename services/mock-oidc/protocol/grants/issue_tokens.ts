/**
 * Turn a successful grant into a token response. Resolves the callback ONCE (scenario queue,
 * then configured `tokenCallbacks`, then default) so access and id token share it, applies
 * upstream's default claims (`tid`, `azp`, audience rules) and stores refresh tokens.
 *
 * @module
 */

import { defaultAudience } from "../../tokens/audience.ts";
import { parseResources } from "../resource_indicator.ts";
import { resolveCallback } from "../../tokens/callback.ts";
import type { TokenRequest } from "../../tokens/token_factory.ts";
import { type IssuerContext, randomTokenOf } from "../deps.ts";

/** Who and what a grant resolved to. */
export interface GrantIdentity {
  clientId: string;
  /** Subject before callbacks; a random UUID is used when absent. */
  subject?: string;
  scope: string[];
  /**
   * RFC 8707 resources: the access token's `aud`, ahead of the audience rules.
   * @default the `resource` parameters of `params`
   */
  resource?: string[];
  /** Access-token `aud` when no resource is named. @default the audience rules */
  audience?: string[];
  /** Token request parameters (request mappings match them). */
  params: URLSearchParams;
  nonce?: string;
  /** Stamp `azp` = client id (authorization code and device grants). */
  azp?: boolean;
  /** Interactive-login claims, put-if-absent under callback claims. */
  loginClaims?: Record<string, unknown>;
  /** When the user authenticated (epoch seconds): the id_token's `auth_time`. */
  authTime?: number;
  /** Claims copied from an assertion or subject token (jwt-bearer, token exchange). */
  copiedClaims?: Record<string, unknown>;
}

/** Which tokens to include. */
export interface IssueOptions {
  idToken: boolean;
  /** true: mint and store a new refresh token; a string: echo that one. */
  refreshToken?: boolean | string;
  /** Extra response members (e.g. `issued_token_type`). */
  extra?: Record<string, unknown>;
}

/** Issue the tokens of one response and build its JSON body. */
export async function issueTokens(
  ctx: IssuerContext,
  identity: GrantIdentity,
  options: IssueOptions,
): Promise<Record<string, unknown>> {
  const { deps, issuerId } = ctx;
  const callback = resolveCallback(issuerId, {
    callbacks: deps.callbacks,
    configured: deps.settings.tokenCallbacks,
  });
  const subject = identity.subject ?? crypto.randomUUID();
  const resource = identity.resource ?? parseResources(identity.params);
  const base: Omit<TokenRequest, "kind"> = {
    issuerId,
    issuerUrl: ctx.issuerUrl,
    subject,
    clientId: identity.clientId,
    defaultClaims: { ...identity.copiedClaims, tid: issuerId, ...identity.loginClaims },
    claims: identity.azp ? { azp: identity.clientId } : undefined,
    nonce: identity.nonce,
    callback,
    params: identity.params,
  };
  const access = await deps.tokens.issue({
    ...base,
    kind: "access_token",
    audience: resource.length > 0
      ? resource
      : identity.audience ?? defaultAudience(identity.params, identity.scope),
    scope: identity.scope,
    // RFC 9449 §6.1: a DPoP-bound access token names its key's thumbprint.
    ...(ctx.dpop ? { claims: { ...base.claims, cnf: { jkt: ctx.dpop.jkt } } } : {}),
  });
  const body: Record<string, unknown> = {
    "token_type": ctx.dpop ? "DPoP" : "Bearer",
    "access_token": access.token,
  };
  if (options.idToken) {
    const id = await deps.tokens.issue({
      ...base,
      kind: "id_token",
      audience: [identity.clientId],
      // OIDC Core §2: needed by clients that send max_age.
      defaultClaims: identity.authTime === undefined
        ? base.defaultClaims
        : { "auth_time": identity.authTime, ...base.defaultClaims },
    });
    body.id_token = id.token;
  }
  if (options.refreshToken) {
    let refresh = options.refreshToken;
    if (refresh === true) {
      refresh = randomTokenOf(deps);
      deps.state.refreshTokens.set(refresh, {
        issuerId,
        clientId: identity.clientId,
        subject,
        scope: identity.scope,
        resource,
        params: identity.params,
        loginClaims: identity.loginClaims,
        authTime: identity.authTime,
        dpopJkt: ctx.dpop?.bindRefresh ? ctx.dpop.jkt : undefined,
      });
    }
    body.refresh_token = refresh;
  }
  // From the process clock (upstream used the wall clock, wrong under systemTime).
  body.expires_in = Math.max(0, Number(access.claims.exp) - Math.floor(deps.clock.now() / 1000));
  if (identity.scope.length > 0) body.scope = identity.scope.join(" ");
  return { ...body, ...options.extra };
}
