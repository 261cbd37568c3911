/**
 * `urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4): polls answer
 * `authorization_pending` until the user code is approved, `expired_token` after expiry (per
 * the process clock), then tokens once.
 *
 * @module
 */

import type { ClientAuth } from "../client_auth.ts";
import type { IssuerContext } from "../deps.ts";
import { invalidGrant, invalidRequest, OAuthError } from "../oauth_error.ts";
import { issueTokens } from "./issue_tokens.ts";

/** Redeem an approved device code. */
export async function deviceCodeGrant(
  ctx: IssuerContext,
  params: URLSearchParams,
  client: ClientAuth,
): Promise<Record<string, unknown>> {
  const deviceCode = params.get("device_code");
  if (!deviceCode) throw invalidRequest("missing required parameter device_code");
  const { devices, userCodes } = ctx.deps.state;
  const device = devices.get(deviceCode);
  if (!device || device.issuerId !== ctx.issuerId) throw invalidGrant("unknown device_code");
  if (client.clientId !== undefined && client.clientId !== device.clientId) {
    throw invalidGrant("device_code was issued to another client");
  }
  const forget = () => {
    devices.delete(deviceCode);
    userCodes.delete(device.userCode);
  };
  if (ctx.deps.clock.now() >= device.expiresAtMs) {
    forget();
    throw new OAuthError(400, "expired_token", "device_code has expired");
  }
  if (device.status === "pending") {
    throw new OAuthError(400, "authorization_pending", "the user has not yet approved");
  }
  forget();
  if (device.status === "denied") {
    throw new OAuthError(400, "access_denied", "the user denied the authorization");
  }
  return await issueTokens(ctx, {
    clientId: device.clientId,
    subject: device.subject,
    scope: device.scope,
    params: device.params,
    azp: true,
    loginClaims: device.loginClaims,
    authTime: device.authTime,
  }, { idToken: device.scope.includes("openid"), refreshToken: true });
}
