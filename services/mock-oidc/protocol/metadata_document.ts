/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a
 * `client_id` that is an `https` URL names a JSON document holding the client's metadata, which
 * the provider fetches. The URL comes from whoever calls `/authorize`, so it is fetched through
 * {@linkcode fetchOutbound} and its bounds (https, loopback or public addresses, normalised URLs,
 * no redirects, a size bound, a timeout), with the draft's own rule on top: a path other than
 * `/`. Documents are cached as their `Cache-Control` / `Expires` allow, against the process
 * clock; a failure is never cached.
 *
 * @module
 */

import type { Clock } from "../clock.ts";
import { type ClientMetadata, SECRET_METHODS, validateClientMetadata } from "./client_metadata.ts";
import { OAuthError } from "./oauth_error.ts";
import type { FetchOutboundOptions, OutboundPolicy } from "../outbound/fetch_outbound.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// The outbound fetch (and its address ranges) loads with the first client ID URL, not at start.
const outbound = lazyModuleAt<typeof import("../outbound/fetch_outbound.ts")>(
  import.meta.resolve("../outbound/fetch_outbound.ts"),
);

/** Largest accepted document, bytes (the draft's suggested 5 KB). */
export const MAX_DOCUMENT_BYTES = 5 * 1024;

/** Longest time a document is reused, whatever its headers say, seconds. */
const MAX_CACHE_SECONDS = 24 * 3600;

/** Most documents kept. */
const MAX_CACHED_DOCUMENTS = 1_000;

/** Options of {@linkcode MetadataDocuments}. */
export interface MetadataDocumentsOptions extends OutboundPolicy {
  clock: Clock;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Host name → addresses. @default Deno.resolveDns, A and AAAA */
  resolve?: FetchOutboundOptions["resolve"];
  /** @default 5000 */
  timeoutMs?: number;
  /** @default {@linkcode MAX_DOCUMENT_BYTES} */
  maxBytes?: number;
}

/** A document's client, as the rest of the provider holds clients. */
export interface DocumentClient {
  clientId: string;
  clientSecret?: undefined;
  metadata: ClientMetadata;
}

/** Why a client ID URL cannot be used (rendered as `invalid_client`). */
export class MetadataDocumentError extends Error {
  /** Stable code callers switch on. */
  readonly code = "metadata_document_unusable";
  constructor(message: string) {
    super(message);
    this.name = "MetadataDocumentError";
  }
}

/** Whether a `client_id` names a metadata document (an `http(s)://` URL) rather than an id. */
export function isClientIdUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** `invalid_client` for a client ID URL that cannot be used; 400 at authorize, 401 at token. */
export function invalidClientDocument(clientId: string, reason: string, status = 400): OAuthError {
  return new OAuthError(status, "invalid_client", `Cannot use client_id ${clientId}: ${reason}`);
}

/** Seconds a response may be reused (0: not at all), from Cache-Control, else Expires. */
export function freshnessSeconds(headers: Headers, nowMs: number): number {
  const cc = (headers.get("cache-control") ?? "").toLowerCase();
  if (/(^|,)\s*(no-store|no-cache|private)\s*(,|=|$)/.test(cc)) return 0;
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(cc);
  if (maxAge) return Math.min(Number(maxAge[2]), MAX_CACHE_SECONDS);
  const expires = headers.get("expires");
  if (expires !== null) {
    const at = Date.parse(expires);
    const date = Date.parse(headers.get("date") ?? "");
    const base = Number.isNaN(date) ? nowMs : date;
    if (Number.isNaN(at)) return 0;
    return Math.max(0, Math.min(Math.floor((at - base) / 1000), MAX_CACHE_SECONDS));
  }
  return 0;
}

/** Fetches, checks and caches client ID metadata documents. */
export class MetadataDocuments {
  readonly #options: MetadataDocumentsOptions;
  readonly #cache = new Map<string, { client: DocumentClient; expiresAtMs: number }>();
  #fetches = 0;

  constructor(options: MetadataDocumentsOptions) {
    this.#options = options;
  }

  /**
   * The outbound policy, fetch and timeout these documents are fetched with, for the other URLs
   * a client names and the provider fetches (its `jwks_uri`: `client_assertion.ts`).
   */
  get outbound(): Omit<FetchOutboundOptions, "maxBytes"> {
    const { allowHttpLoopback, allowPrivateNetworks, resolve, timeoutMs, fetch } = this.#options;
    return { allowHttpLoopback, allowPrivateNetworks, resolve, timeoutMs, fetch };
  }

  /** How many documents were fetched (tests: the cache at work). */
  get fetches(): number {
    return this.#fetches;
  }

  /** The client a client ID URL names; throws {@linkcode MetadataDocumentError}. */
  async client(clientId: string): Promise<DocumentClient> {
    const now = this.#options.clock.now();
    const cached = this.#cache.get(clientId);
    if (cached && cached.expiresAtMs > now) return cached.client;
    this.#cache.delete(clientId);
    const { body, freshFor } = await this.#fetch(clientId);
    const client = checkDocument(clientId, body);
    if (freshFor > 0) {
      this.#cache.set(clientId, { client, expiresAtMs: now + freshFor * 1000 });
      if (this.#cache.size > MAX_CACHED_DOCUMENTS) {
        this.#cache.delete(this.#cache.keys().next().value!);
      }
    }
    return client;
  }

  async #fetch(clientId: string): Promise<{ body: unknown; freshFor: number }> {
    const { maxBytes = MAX_DOCUMENT_BYTES, fetch: doFetch = fetch } = this.#options;
    const { fetchOutbound, OutboundRefused } = await outbound();
    let fetched;
    try {
      fetched = await fetchOutbound(clientId, {
        allowHttpLoopback: this.#options.allowHttpLoopback,
        allowPrivateNetworks: this.#options.allowPrivateNetworks,
        resolve: this.#options.resolve,
        timeoutMs: this.#options.timeoutMs,
        fetch: (input, init) => {
          this.#fetches++;
          return doFetch(input, init);
        },
        maxBytes,
        what: "the metadata document",
        // The draft's shape rule beyond those of every outbound URL.
        rule: (url) =>
          url.pathname === "/" ? "the URL must have a path without . or .. segments" : undefined,
      });
    } catch (err) {
      if (err instanceof OutboundRefused) throw new MetadataDocumentError(err.message);
      throw err;
    }
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fetched.bytes));
    } catch {
      throw new MetadataDocumentError("the metadata document is not JSON");
    }
    return { body, freshFor: freshnessSeconds(fetched.headers, this.#options.clock.now()) };
  }
}

/** The draft's rules on the document itself, then the RFC 7591 metadata rules. */
export function checkDocument(clientId: string, body: unknown): DocumentClient {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new MetadataDocumentError("the metadata document is not a JSON object");
  }
  const doc = body as Record<string, unknown>;
  if (doc.client_id !== clientId) {
    throw new MetadataDocumentError("the document's client_id is not its URL");
  }
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined) {
    throw new MetadataDocumentError("a metadata document must not hold a client_secret");
  }
  const method = doc.token_endpoint_auth_method ?? "none";
  if (
    typeof method === "string" && (SECRET_METHODS.has(method) || method === "client_secret_jwt")
  ) {
    throw new MetadataDocumentError(
      `token_endpoint_auth_method ${method} needs a shared secret, which a document cannot hold`,
    );
  }
  let metadata: ClientMetadata;
  try {
    metadata = validateClientMetadata({ ...doc, token_endpoint_auth_method: method });
  } catch (err) {
    if (err instanceof OAuthError) throw new MetadataDocumentError(err.message);
    throw err;
  }
  return { clientId, metadata };
}
