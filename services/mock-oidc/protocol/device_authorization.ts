/**
 * Device authorization grant (RFC 8628): `POST /{issuer}/device_authorization` starts it and
 * `GET|POST /{issuer}/device` is the verification page. Without `interactiveLogin` the user
 * code is approved at once, so tests can poll straight away.
 *
 * @module
 */

import { parseScope } from "../tokens/audience.ts";
import { authenticateClient } from "./client_auth.ts";
import { type IssuerContext, randomTokenOf } from "./deps.ts";
import { readForm } from "./form.ts";
import { parseLoginClaims } from "./login_claims.ts";
import { invalidClient } from "./oauth_error.ts";
import { devicePage, page } from "./pages.ts";
import { escapeHtml, htmlResponse, jsonResponse } from "./responses.ts";

/** Lifetime of a device code. */
const DEVICE_CODE_TTL_S = 600;
/** Polling interval; short because this is a test server (RFC 8628 default is 5). */
const DEVICE_POLL_INTERVAL_S = 1;
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

/** Start a device authorization. */
export async function handleDeviceAuthorization(ctx: IssuerContext): Promise<Response> {
  const params = await readForm(ctx.req);
  const client = authenticateClient(ctx.req, params, {
    issuerUrl: ctx.issuerUrl,
    endpointUrl: `${ctx.baseUrl}/device_authorization`,
  });
  if (!client.clientId) throw invalidClient("client_id is required");
  const { deps } = ctx;
  const deviceCode = randomTokenOf(deps);
  const userCode = newUserCode();
  deps.state.devices.set(deviceCode, {
    issuerId: ctx.issuerId,
    clientId: client.clientId,
    userCode,
    scope: parseScope(params.get("scope")),
    params,
    expiresAtMs: deps.clock.now() + DEVICE_CODE_TTL_S * 1000,
    status: deps.settings.interactiveLogin ? "pending" : "approved",
    authTime: deps.settings.interactiveLogin ? undefined : Math.floor(deps.clock.now() / 1000),
  });
  deps.state.userCodes.set(normalize(userCode), deviceCode);
  const verificationUri = `${ctx.baseUrl}/device`;
  return jsonResponse({
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(userCode)}`,
    expires_in: DEVICE_CODE_TTL_S,
    interval: DEVICE_POLL_INTERVAL_S,
  }, { noStore: true });
}

/** The verification page: GET shows the form, POST approves the user code. */
export async function handleDeviceVerification(ctx: IssuerContext): Promise<Response> {
  const { req, deps, issuerId } = ctx;
  if (req.method === "GET") {
    const userCode = new URL(req.url).searchParams.get("user_code") ?? "";
    return htmlResponse(devicePage(issuerId, userCode));
  }
  const form = await readForm(req);
  const userCode = form.get("user_code") ?? "";
  const username = form.get("username") ?? "";
  const deviceCode = deps.state.userCodes.get(normalize(userCode));
  const device = deviceCode ? deps.state.devices.get(deviceCode) : undefined;
  if (!device || device.issuerId !== issuerId || deps.clock.now() >= device.expiresAtMs) {
    return htmlResponse(devicePage(issuerId, userCode, "Unknown or expired code."), {
      status: 400,
    });
  }
  if (!username) {
    return htmlResponse(devicePage(issuerId, userCode, "A username is required."), {
      status: 400,
    });
  }
  device.status = "approved";
  device.subject = username;
  device.loginClaims = parseLoginClaims(form.get("claims"));
  device.authTime = Math.floor(deps.clock.now() / 1000);
  return htmlResponse(
    page("Device approved", `<h1>Device approved</h1><p>Signed in as ${escapeHtml(username)}.</p>`),
  );
}

function newUserCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const chars = [...bytes].map((b) => USER_CODE_ALPHABET[b % USER_CODE_ALPHABET.length]);
  return `${chars.slice(0, 4).join("")}-${chars.slice(4).join("")}`;
}

function normalize(userCode: string): string {
  return userCode.toUpperCase().replace(/[^A-Z0-9]/g, "");
}
