/**
 * Clients registered through RFC 7591 dynamic registration, per issuer, in memory and bounded,
 * and the rules a registered client is held to: its exact `redirect_uris`, its
 * `token_endpoint_auth_method` (and secret) and its `grant_types`. A client id nobody registered
 * is served as before, permissively (a mock accepts whatever client a test names).
 *
 * @module
 */

import type { ClientAuth } from "./client_auth.ts";
import { type ClientMetadata, SECRET_METHODS } from "./client_metadata.ts";
import { invalidClient, OAuthError } from "./oauth_error.ts";
import { BoundedMap } from "./bounded_map.ts";
import type { IssuerContext } from "./deps.ts";
import {
  invalidClientDocument,
  isClientIdUrl,
  MetadataDocumentError,
} from "./metadata_document.ts";

/** Most registrations kept; the oldest go first beyond it. */
const MAX_REGISTERED_CLIENTS = 10_000;

/** One registered client. */
export interface RegisteredClient {
  issuerId: string;
  clientId: string;
  /** Issued to the `client_secret_*` methods only. */
  clientSecret?: string;
  /** Epoch seconds, process clock. */
  clientIdIssuedAt: number;
  /** Bearer credential of the RFC 7592 read. */
  registrationAccessToken: string;
  metadata: ClientMetadata;
}

/** The registrations of every issuer. */
export class ClientRegistry {
  readonly #clients: BoundedMap<string, RegisteredClient>;

  constructor(max = MAX_REGISTERED_CLIENTS) {
    this.#clients = new BoundedMap(max);
  }

  /** Store a registration. */
  add(client: RegisteredClient): void {
    this.#clients.set(keyOf(client.issuerId, client.clientId), client);
  }

  /** The registration of a client id at an issuer, if any. */
  get(issuerId: string, clientId: string): RegisteredClient | undefined {
    return this.#clients.get(keyOf(issuerId, clientId));
  }

  /** Every registration, oldest first. */
  list(): RegisteredClient[] {
    return [...this.#clients.values()];
  }

  /** How many registrations are kept. */
  get size(): number {
    return this.#clients.size;
  }

  /** Forget every registration. */
  clear(): void {
    this.#clients.clear();
  }
}

function keyOf(issuerId: string, clientId: string): string {
  return JSON.stringify([issuerId, clientId]);
}

/** A client the provider holds to its metadata: registered, or named by a metadata document. */
export interface HeldClient {
  clientId: string;
  clientSecret?: string;
  metadata: ClientMetadata;
}

/**
 * The client a `client_id` names at an issuer: its registration, its metadata document (a URL
 * id; fetched, or from the cache), or undefined (an unregistered id: permissive). A document
 * that cannot be used is `invalid_client` with `status` (400 at authorize, 401 at token).
 */
export async function heldClient(
  ctx: IssuerContext,
  clientId: string,
  status = 400,
): Promise<HeldClient | undefined> {
  const registered = ctx.deps.state.clients.get(ctx.issuerId, clientId);
  if (registered || !isClientIdUrl(clientId)) return registered;
  const documents = ctx.deps.metadataDocuments;
  if (!documents) return undefined;
  try {
    return await documents.client(clientId);
  } catch (err) {
    if (err instanceof MetadataDocumentError) {
      throw invalidClientDocument(clientId, err.message, status);
    }
    throw err;
  }
}

/** `400 unauthorized_client` (RFC 6749 §5.2). */
function unauthorizedClient(description: string): OAuthError {
  return new OAuthError(400, "unauthorized_client", description);
}

/**
 * Hold a registered client to its registration at the token endpoint: authentication method,
 * secret, grant type. Throws `invalid_client` or `unauthorized_client`.
 */
export function enforceAtToken(
  client: HeldClient,
  auth: ClientAuth,
  grantType: string,
): void {
  const method = client.metadata.token_endpoint_auth_method;
  if (auth.method !== method) {
    throw invalidClient(
      `client ${client.clientId} is registered with token_endpoint_auth_method ${method}, ` +
        `the request used ${auth.method}`,
    );
  }
  // client_secret_jwt proves the secret with its assertion's MAC instead (client_assertion.ts)
  if (
    SECRET_METHODS.has(method) && method !== "client_secret_jwt" &&
    auth.secret !== client.clientSecret
  ) {
    throw invalidClient("client_secret does not match the registration");
  }
  if (!client.metadata.grant_types.includes(grantType)) {
    throw unauthorizedClient(`client ${client.clientId} is not registered for grant ${grantType}`);
  }
}
