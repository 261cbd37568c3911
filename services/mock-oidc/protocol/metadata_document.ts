/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a
 * `client_id` that is an `https` URL names a JSON document holding the client's metadata, which
 * the provider fetches. The URL comes from whoever calls `/authorize`, so the fetch is bounded:
 * `https` only (plain `http` only to a loopback host, and only with
 * `--client-metadata-allow-http-loopback`), no private, link-local or otherwise non-public address
 * except loopback (unless `--client-metadata-allow-private-networks`), no redirects, a size bound,
 * a timeout. Documents are cached as their `Cache-Control` / `Expires` allow, against the process
 * clock; a failure is never cached.
 *
 * @module
 */

import type { Clock } from "../clock.ts";
import { type ClientMetadata, SECRET_METHODS, validateClientMetadata } from "./client_metadata.ts";
import { OAuthError } from "./oauth_error.ts";

/** Largest accepted document, bytes (the draft's suggested 5 KB). */
export const MAX_DOCUMENT_BYTES = 5 * 1024;

/** Time the fetch may take, ms. */
const FETCH_TIMEOUT_MS = 5_000;

/** Longest time a document is reused, whatever its headers say, seconds. */
const MAX_CACHE_SECONDS = 24 * 3600;

/** Most documents kept. */
const MAX_CACHED_DOCUMENTS = 1_000;

/** Who may be fetched. */
export interface MetadataDocumentPolicy {
  /** Plain `http` to a loopback host (`deno task dev` turns it on). @default false */
  allowHttpLoopback?: boolean;
  /** Private, link-local and other non-public addresses besides loopback. @default false */
  allowPrivateNetworks?: boolean;
}

/** Options of {@linkcode MetadataDocuments}. */
export interface MetadataDocumentsOptions extends MetadataDocumentPolicy {
  clock: Clock;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Host name → addresses. @default Deno.resolveDns, A and AAAA */
  resolve?: (host: string) => Promise<string[]>;
  /** @default {@linkcode FETCH_TIMEOUT_MS} */
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

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether an IPv4 or IPv6 address literal is loopback. */
function isLoopbackAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, "").toLowerCase();
  if (a === "::1") return true;
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  return /^127\.\d+\.\d+\.\d+$/.test(v4);
}

/**
 * Whether an address is public: not private, link-local, shared, unspecified, documentation,
 * benchmarking, multicast or reserved (RFC 6890). Loopback is not public either.
 */
export function isPublicAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, "").toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return isPublicAddress(mapped[1]);
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (v4) {
    const [x, y] = [Number(v4[1]), Number(v4[2])];
    return !(x === 0 || x === 10 || x === 127 || x >= 224 ||
      (x === 100 && y >= 64 && y <= 127) || (x === 169 && y === 254) ||
      (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168) ||
      (x === 192 && y === 0) || (x === 198 && (y === 18 || y === 19)));
  }
  if (!a.includes(":")) return false;
  // IPv6: global unicast 2000::/3 only, minus documentation 2001:db8::/32.
  const first = parseInt(a.split(":")[0] || "0", 16);
  return (first & 0xe000) === 0x2000 && !a.startsWith("2001:db8:");
}

async function defaultResolve(host: string): Promise<string[]> {
  const found = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
  ]);
  return found.flatMap((r) => r.status === "fulfilled" ? r.value : []);
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
    const url = await this.#checkUrl(clientId);
    const { body, freshFor } = await this.#fetch(url);
    const client = checkDocument(clientId, body);
    if (freshFor > 0) {
      this.#cache.set(clientId, { client, expiresAtMs: now + freshFor * 1000 });
      if (this.#cache.size > MAX_CACHED_DOCUMENTS) {
        this.#cache.delete(this.#cache.keys().next().value!);
      }
    }
    return client;
  }

  async #checkUrl(clientId: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      throw new MetadataDocumentError("it is not a valid URL");
    }
    // The draft's shape rules: a path, no fragment, no credentials, no dot segments.
    if (url.username || url.password) {
      throw new MetadataDocumentError("the URL must not carry credentials");
    }
    if (clientId.includes("#")) throw new MetadataDocumentError("the URL must not have a fragment");
    if (url.pathname === "/" || /\/\.\.?(\/|$)/.test(clientId.replace(/[?].*$/, ""))) {
      throw new MetadataDocumentError("the URL must have a path without . or .. segments");
    }
    const host = url.hostname.toLowerCase();
    const loopbackName = LOOPBACK_NAMES.has(host) || isLoopbackAddress(host);
    if (url.protocol === "http:") {
      if (!loopbackName) throw new MetadataDocumentError("the URL must use https");
      if (!this.#options.allowHttpLoopback) {
        throw new MetadataDocumentError(
          "plain http is accepted for loopback hosts only with --client-metadata-allow-http-loopback",
        );
      }
    } else if (url.protocol !== "https:") {
      throw new MetadataDocumentError("the URL must use https");
    }
    if (loopbackName || this.#options.allowPrivateNetworks) return url;
    const literal = /^\[.*\]$|^\d+\.\d+\.\d+\.\d+$/.test(host);
    let addresses: string[];
    if (literal) {
      addresses = [host];
    } else {
      try {
        addresses = await (this.#options.resolve ?? defaultResolve)(host);
      } catch {
        addresses = [];
      }
      if (addresses.length === 0) throw new MetadataDocumentError(`${host} does not resolve`);
    }
    const refused = addresses.find((a) => !isLoopbackAddress(a) && !isPublicAddress(a));
    if (refused !== undefined) {
      throw new MetadataDocumentError(
        `${host} is a private or reserved address (${refused}); ` +
          "--client-metadata-allow-private-networks allows it",
      );
    }
    return url;
  }

  async #fetch(url: URL): Promise<{ body: unknown; freshFor: number }> {
    const { timeoutMs = FETCH_TIMEOUT_MS, maxBytes = MAX_DOCUMENT_BYTES } = this.#options;
    const doFetch = this.#options.fetch ?? fetch;
    const signal = AbortSignal.timeout(timeoutMs);
    this.#fetches++;
    let res: Response;
    try {
      res = await doFetch(url, {
        redirect: "manual",
        signal,
        headers: { accept: "application/json" },
      });
    } catch (err) {
      throw new MetadataDocumentError(
        signal.aborted
          ? `the metadata document did not arrive within ${timeoutMs}ms`
          : `the metadata document cannot be fetched (${(err as Error).name})`,
      );
    }
    try {
      if (res.status >= 300 && res.status < 400) {
        throw new MetadataDocumentError(
          `the metadata document answered ${res.status}; redirects are not followed`,
        );
      }
      if (res.status !== 200) {
        throw new MetadataDocumentError(`the metadata document answered ${res.status}`);
      }
      const bytes = await readBounded(res, maxBytes, signal, timeoutMs);
      let body: unknown;
      try {
        body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      } catch {
        throw new MetadataDocumentError("the metadata document is not JSON");
      }
      return { body, freshFor: freshnessSeconds(res.headers, this.#options.clock.now()) };
    } finally {
      await res.body?.cancel().catch(() => {});
    }
  }
}

async function readBounded(
  res: Response,
  maxBytes: number,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) {
    throw new MetadataDocumentError(`the metadata document is larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body!.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes) {
        throw new MetadataDocumentError(`the metadata document is larger than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof MetadataDocumentError) throw err;
    throw new MetadataDocumentError(
      signal.aborted
        ? `the metadata document did not arrive within ${timeoutMs}ms`
        : "the metadata document could not be read",
    );
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
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
