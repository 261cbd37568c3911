/**
 * The readiness check: read the mirror's catalog (`streams/v1/index.json`) with a GET, not a HEAD,
 * so the storage error code can tell a misconfiguration from a missing catalog (a HEAD 403 or 404
 * has no body, so the SDK cannot name its cause), and check that it is an `index:1.0` document.
 *
 * @module
 */
import { readStream } from "@svc/shared/http";
import { HttpError } from "@svc/shared/problem";
import { StoreError, type StoreErrorCode } from "./errors.ts";
import type { ObjectStore } from "./store.ts";

/** Path of the catalog under the prefix. */
export const CATALOG_PATH = "streams/v1/index.json";
/** A catalog larger than this is not read (real ones are a few KB). */
export const MAX_CATALOG_BYTES = 4 << 20;

/**
 * The not-ready reasons (docs/image-proxy.md#readiness-and-shutdown) besides `starting` and
 * `draining`.
 */
export type CatalogReason = "s3_unavailable" | "catalog_missing" | "s3_misconfigured";

/** The catalog is absent or is not a simplestreams index. */
class CatalogMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CatalogMissingError";
  }
}

async function readAtMost(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  try {
    return await readStream(body, { limit });
  } catch (err) {
    if (err instanceof HttpError && err.code === "body_too_large") {
      throw new CatalogMissingError("Cannot read catalog: it is too large");
    }
    throw err;
  }
}

/**
 * Reads and checks the catalog; resolves when it is a readable `index:1.0` document.
 *
 * @example Usage
 * ```ts ignore
 * import { checkCatalog } from "./catalog_probe.ts";
 * await checkCatalog(store, "mirror/", AbortSignal.timeout(10_000));
 * ```
 * @throws {StoreError} when storage fails; {@linkcode CatalogMissingError} when the catalog is
 * not a simplestreams index.
 */
export async function checkCatalog(
  store: ObjectStore,
  prefix: string,
  signal?: AbortSignal,
): Promise<void> {
  const { body } = await store.get(prefix + CATALOG_PATH, { signal });
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(await readAtMost(body, MAX_CATALOG_BYTES)));
  } catch (err) {
    if (err instanceof CatalogMissingError) throw err;
    if (err instanceof SyntaxError) {
      throw new CatalogMissingError("Cannot read catalog: it is not JSON");
    }
    throw new StoreError("unavailable", "Cannot read catalog: the transfer failed", { cause: err });
  }
  const index = doc as { format?: unknown; index?: unknown };
  if (
    typeof doc !== "object" || doc === null || index.format !== "index:1.0" ||
    typeof index.index !== "object" || index.index === null
  ) {
    throw new CatalogMissingError("Cannot read catalog: it is not an index:1.0 document");
  }
}

/**
 * The readiness reason of a failed {@linkcode checkCatalog}.
 *
 * @example Usage
 * ```ts
 * import { catalogReasonOf } from "./catalog_probe.ts";
 * import { StoreError } from "./errors.ts";
 * catalogReasonOf(new StoreError("denied", "403")); // "s3_misconfigured"
 * ```
 */
export function catalogReasonOf(err: unknown): CatalogReason {
  if (err instanceof CatalogMissingError) return "catalog_missing";
  const code: StoreErrorCode | undefined = err instanceof StoreError ? err.code : undefined;
  if (code === "not_found") return "catalog_missing";
  if (code === "denied" || code === "misconfigured") return "s3_misconfigured";
  return "s3_unavailable";
}
