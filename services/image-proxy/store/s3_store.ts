/**
 * {@linkcode ObjectStore} over `@aws-sdk/client-s3` (v3, under Deno): the fetch handler
 * (`fetch_handler.ts`), time-to-headers bounded by the upstream idle timeout, standard retries
 * (3 attempts, before any byte reaches the client), checksums only when required, credentials
 * from the SDK's default provider chain.
 *
 * @module
 */
import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  type HeadObjectCommandOutput,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { fromNodeProviderChain } from "@aws-sdk/credential-providers";
import { storageFetchHandler } from "./fetch_handler.ts";
import { classifyStoreError, StoreError } from "./errors.ts";
import { deniedPermission } from "./permission.ts";
import type { GetOptions, ObjectMeta, ObjectRead, ObjectStore, StoreEvent } from "./store.ts";

/** Options of {@linkcode createS3Store}. */
export interface S3StoreOptions {
  bucket: string;
  /** @default the SDK's region chain (AWS_REGION, shared config) */
  region?: string;
  /** S3-compatible endpoint, e.g. `http://127.0.0.1:9000`. */
  endpoint?: string;
  /** @default {false} */
  forcePathStyle?: boolean;
  /** Bounds connecting and waiting for response headers, per attempt. */
  timeoutMs: number;
  /** @default {3} */
  maxAttempts?: number;
  /** @default the SDK's default provider chain */
  credentials?: S3ClientConfig["credentials"];
  /** Called once per storage request (after retries). */
  observe?: (event: StoreEvent) => void;
}

/** The SDK client the store uses, exposed for the readiness probe and tests. */
export interface S3Store extends ObjectStore {
  client: S3Client;
  bucket: string;
  destroy(): void;
}

function metaOf(out: HeadObjectCommandOutput | GetObjectCommandOutput, size: number): ObjectMeta {
  return {
    size,
    etag: out.ETag,
    lastModified: out.LastModified,
    contentType: out.ContentType,
    cacheControl: out.CacheControl,
    contentDisposition: out.ContentDisposition,
    contentEncoding: out.ContentEncoding,
    expires: out.ExpiresString,
  };
}

/**
 * Creates the S3-backed store.
 *
 * @example Usage
 * ```ts ignore
 * import { createS3Store } from "./s3_store.ts";
 * const store = createS3Store({ bucket: "mirror", timeoutMs: 30_000 });
 * const meta = await store.head("streams/v1/index.json");
 * ```
 */
export function createS3Store(options: S3StoreOptions): S3Store {
  const { bucket, timeoutMs, observe } = options;
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle ?? false,
    credentials: options.credentials ?? fromNodeProviderChain(),
    maxAttempts: options.maxAttempts ?? 3,
    retryMode: "standard",
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    requestHandler: storageFetchHandler({ timeoutMs }),
  });

  async function call<T extends { $metadata: { attempts?: number } }>(
    operation: StoreEvent["operation"],
    send: () => Promise<T>,
  ): Promise<T> {
    const start = performance.now();
    const report = (outcome: StoreEvent["outcome"], attempts = 1, errorKind?: string) =>
      observe?.({
        operation,
        outcome,
        errorKind,
        durationS: (performance.now() - start) / 1000,
        retries: Math.max(0, attempts - 1),
      });
    try {
      const out = await send();
      report("success", out.$metadata.attempts);
      return out;
    } catch (err) {
      // A host outside the grant never heals by retrying: misconfigured, naming host and grant.
      const denied = deniedPermission(err);
      const code = denied ? "misconfigured" : classifyStoreError(err);
      const attempts = (err as { $metadata?: { attempts?: number } }).$metadata?.attempts;
      report("error", attempts, code);
      throw new StoreError(code, `Cannot ${operation}: ${denied ?? code}`, {
        cause: err,
        permission: denied,
      });
    }
  }

  async function head(key: string, opts: { signal?: AbortSignal } = {}): Promise<ObjectMeta> {
    const out = await call(
      "HeadObject",
      () =>
        client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), {
          abortSignal: opts.signal,
        }),
    );
    return metaOf(out, out.ContentLength ?? 0);
  }

  async function get(key: string, opts: GetOptions = {}): Promise<ObjectRead> {
    const { range, ifMatch, signal } = opts;
    const out = await call("GetObject", () =>
      client.send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          IfMatch: ifMatch,
        }),
        { abortSignal: signal },
      ));
    const body = out.Body?.transformToWebStream() ??
      new ReadableStream({ start: (c) => c.close() });
    // Stores that ignore If-Match (s3rver) still name the version they served: a different ETag
    // means the object was replaced since its metadata was read.
    if (ifMatch !== undefined && out.ETag !== ifMatch) {
      await body.cancel().catch(() => {});
      throw new StoreError("changed", "Cannot GetObject: the object changed");
    }
    return { meta: metaOf(out, out.ContentLength ?? 0), body };
  }

  return { client, bucket, head, get, destroy: () => client.destroy() };
}
