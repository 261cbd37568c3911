/**
 * Dynamic client registration: `POST /{issuer}/register` (RFC 7591, open: no initial access
 * token) and the RFC 7592 read `GET /{issuer}/register/{client}` with the registration access
 * token. A confidential method (`client_secret_basic`, `client_secret_post`) gets a
 * `client_secret` that never expires (`client_secret_expires_at: 0`).
 *
 * @module
 */

import { readBody } from "@svc/shared/http";
import { HttpError } from "@svc/shared/problem";
import {
  invalidClientMetadata,
  SECRET_METHODS,
  validateClientMetadata,
} from "./client_metadata.ts";
import type { RegisteredClient } from "./client_registry.ts";
import { type IssuerContext, randomTokenOf } from "./deps.ts";
import { FORM_LIMIT_BYTES } from "./form.ts";
import { invalidToken, OAuthError } from "./oauth_error.ts";
import { jsonResponse } from "./responses.ts";

/** The registration endpoint of an issuer URL. */
export function registrationEndpoint(issuerUrl: string): string {
  return `${issuerUrl}/register`;
}

/** The client information response (RFC 7591 §3.2.1, RFC 7592 §3). */
function clientInformation(
  client: RegisteredClient,
  issuerUrl: string,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    "client_id": client.clientId,
    "client_id_issued_at": client.clientIdIssuedAt,
  };
  if (client.clientSecret !== undefined) {
    body.client_secret = client.clientSecret;
    body.client_secret_expires_at = 0;
  }
  body.registration_access_token = client.registrationAccessToken;
  body.registration_client_uri = `${registrationEndpoint(issuerUrl)}/${
    encodeURIComponent(client.clientId)
  }`;
  return { ...body, ...client.metadata };
}

/** `POST /{issuer}/register`. */
export async function handleRegister(ctx: IssuerContext): Promise<Response> {
  const { req, deps } = ctx;
  let bytes: Uint8Array;
  try {
    bytes = await readBody(req, { limit: FORM_LIMIT_BYTES });
  } catch (err) {
    if (err instanceof HttpError && err.code === "body_too_large") {
      throw new OAuthError(
        413,
        "invalid_client_metadata",
        `request body exceeds ${FORM_LIMIT_BYTES} bytes`,
      );
    }
    throw err;
  }
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  if (!/^application\/json\s*(;|$)/.test(type)) {
    throw invalidClientMetadata("request body must be application/json");
  }
  let input: unknown;
  try {
    input = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw invalidClientMetadata("request body is not valid JSON");
  }
  const metadata = validateClientMetadata(input);
  const client: RegisteredClient = {
    issuerId: ctx.issuerId,
    clientId: crypto.randomUUID(),
    clientIdIssuedAt: Math.floor(deps.clock.now() / 1000),
    registrationAccessToken: randomTokenOf(deps),
    metadata,
  };
  if (SECRET_METHODS.has(metadata.token_endpoint_auth_method)) {
    client.clientSecret = randomTokenOf(deps);
  }
  deps.state.clients.add(client);
  return jsonResponse(clientInformation(client, ctx.baseUrl), { status: 201, noStore: true });
}

/** `GET /{issuer}/register/{client}` (RFC 7592 §2.1). */
export function handleReadRegistration(ctx: IssuerContext): Response {
  const { req, deps } = ctx;
  const path = new URL(req.url).pathname;
  let clientId: string;
  try {
    clientId = decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
  } catch {
    clientId = "";
  }
  const header = req.headers.get("authorization") ?? "";
  const presented = /^Bearer +(\S+) *$/i.exec(header)?.[1];
  const client = deps.state.clients.get(ctx.issuerId, clientId);
  // RFC 7592 §2.1: an unknown client and a wrong token look the same (401), so ids cannot be
  // probed without the credential.
  if (presented === undefined) throw invalidToken("a registration access token is required");
  if (!client || presented !== client.registrationAccessToken) {
    throw invalidToken("the registration access token is not valid for this client");
  }
  return jsonResponse(clientInformation(client, ctx.baseUrl), { noStore: true });
}
