/**
 * What the key store signs with: a backend that binds private keys and returns their JWS sign
 * functions. `--signer webcrypto` (the default, `webcrypto_pool.ts`) needs no extra permission;
 * `--signer openssl` (`openssl.ts`) needs `--allow-ffi` and libcrypto, and is for load tests.
 *
 * @module
 */

import type { AlgorithmSpec } from "./algorithms.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import { createWebCryptoPool } from "./webcrypto_pool.ts";

// By URL: a default start does not even read it (shared/lifecycle/lazy_module.ts says why).
const openSsl = lazyModuleAt<typeof import("./openssl.ts")>(import.meta.resolve("./openssl.ts"));

/** Produces a JWS signature over `data` with one bound key. */
export type SignFunction = (data: Uint8Array) => Promise<Uint8Array>;

/** The `--signer` values. */
const SIGNERS = ["webcrypto", "openssl"] as const;

/** One of {@linkcode SIGNERS}. */
export type SignerName = typeof SIGNERS[number];

/** A signing backend. */
export interface Signer {
  readonly name: SignerName;
  /** Binds a private key (PKCS#8 DER) and returns its sign function. */
  bind(pkcs8: Uint8Array, spec: AlgorithmSpec): SignFunction;
  /** Resolves once the backend can sign; rejects with the reason when it cannot. */
  ready(): Promise<void>;
  /** Frees what the backend holds (worker threads, FFI keys, the library); signing then fails. */
  close(): Promise<void>;
}

/** Options of {@linkcode createSigner}: the `--signer*` settings. */
export interface SignerOptions {
  signer: SignerName;
  /** Worker threads (webcrypto) or signatures in flight (openssl); 0 = one per core. */
  threads: number;
  /** libcrypto name or path (openssl). */
  libcrypto: string;
}

/**
 * Open the configured backend. Its `ready()` tells when it can sign (worker threads start
 * beside the rest of the startup). The FFI backend's module loads only when chosen: it is
 * for load tests and stays off a default start.
 *
 * @throws {Error} "Cannot use --signer openssl: …" without `--allow-ffi` or libcrypto.
 */
export async function createSigner(options: SignerOptions): Promise<Signer> {
  const threads = options.threads > 0 ? options.threads : navigator.hardwareConcurrency || 1;
  return options.signer === "openssl"
    ? (await openSsl()).createOpenSslSigner({ library: options.libcrypto, threads })
    : createWebCryptoPool({ size: threads });
}
