/**
 * `/_mock/clients`: the clients registered through `POST /{issuer}/register` (GET, oldest first,
 * without their secrets or registration access tokens) and forgetting them all (DELETE).
 * `/_mock/reset` keeps them, as it keeps signing keys and refresh tokens: a client stores its
 * registration the way it caches a JWKS, and client ids are random, so tests cannot collide.
 * @module
 */
import type { ClientRegistry } from "../protocol/client_registry.ts";
import { controlJson } from "./control_deps.ts";

/** GET /_mock/clients → `{count, clients: [...]}`. */
export function listClients(registry: ClientRegistry): Response {
  const clients = registry.list().map((c) => ({
    issuer: c.issuerId,
    clientId: c.clientId,
    clientIdIssuedAt: c.clientIdIssuedAt,
    clientName: typeof c.metadata.client_name === "string" ? c.metadata.client_name : null,
    tokenEndpointAuthMethod: c.metadata.token_endpoint_auth_method,
    redirectUris: c.metadata.redirect_uris,
    grantTypes: c.metadata.grant_types,
  }));
  return controlJson({ count: clients.length, clients });
}

/** DELETE /_mock/clients → `{count: 0}`. */
export function clearClients(registry: ClientRegistry): Response {
  registry.clear();
  return controlJson({ count: 0 });
}
