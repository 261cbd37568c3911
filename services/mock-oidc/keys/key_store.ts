/**
 * Per-issuer signing keys. One key per issuer, created on first touch, `kid` = issuer id.
 * Keys come from `initialKeys` (in order), then a pool of keys generated ahead of time, so a new
 * issuer never waits for RSA generation when a spare is ready and other requests never stall.
 * Generation runs off the serving thread (WebCrypto's key generation is a blocking task of the
 * runtime) and at most `maxGenerating` at once: a burst of new issuers queues for keys while the
 * remaining cores keep signing for existing issuers (80 new issuers at once delayed every other
 * token by 7.8 s without the bound). Keys live until the process ends (reset does not drop them).
 *
 * @module
 */

import type { Algorithm } from "./algorithms.ts";
import {
  bindIssuerKey,
  generatePrivateJwk,
  type IssuerKey,
  type KeyCertificate,
  type PrivateJwk,
  publicJwkOf,
} from "./key_material.ts";
import type { Signer } from "./signer.ts";
import { Semaphore } from "@svc/shared/semaphore";

/** Signing keys by issuer id. */
export interface KeyStore {
  /** Public JWK set of the issuer (creates the issuer's key on first touch). */
  jwks(issuerId: string): Promise<{ keys: JsonWebKey[] }>;
  /**
   * The issuer's JWKS answer body (its key's `jwksJson`). The first of a key whose certificate was
   * made ahead (the bundled keys') imports nothing: the key is bound to the issuer then, and
   * imported into WebCrypto when first used for anything else.
   */
  jwksJson(issuerId: string): Promise<string>;
  /** The issuer's private key as WebCrypto sees it. */
  signingKey(issuerId: string): Promise<{ kid: string; alg: string; key: CryptoKey }>;
  /** Everything about the issuer's key, including its sign function and cached JWKS body. */
  issuerKey(issuerId: string): Promise<IssuerKey>;
  /** The issuer's key if it already exists, without creating one. */
  peek(issuerId: string): IssuerKey | undefined;
}

/** Options of {@linkcode createKeyStore}. */
export interface KeyStoreOptions {
  /** Algorithm of generated keys. @default "RS256" */
  algorithm?: Algorithm;
  /**
   * Private keys handed out, in order, to the first issuers touched (with their algorithm, and
   * their certificate when made ahead).
   */
  initialKeys?: { jwk: PrivateJwk; alg: Algorithm; certificate?: KeyCertificate }[];
  /** Signing backend (worker pool or OpenSSL); WebCrypto on the calling thread when absent. */
  signer?: Signer;
  /** How many keys to keep generated ahead. @default 1 */
  spareKeys?: number;
  /** Key generator (tests inject a fast one). */
  generate?: (alg: Algorithm) => Promise<PrivateJwk>;
  /** Most key generations running at once. @default 1 */
  maxGenerating?: number;
}

/**
 * Create the key store and start generating spare keys in the background.
 *
 * @example
 * ```ts
 * const keys = createKeyStore({ algorithm: "ES256" });
 * const { keys: [jwk] } = await keys.jwks("default"); // jwk.kid === "default"
 * ```
 */
export function createKeyStore(options: KeyStoreOptions = {}): KeyStore {
  const algorithm = options.algorithm ?? "RS256";
  const limiter = new Semaphore(options.maxGenerating ?? 1);
  const generateOne = options.generate ?? generatePrivateJwk;
  const generate = (alg: Algorithm) => limiter.run(() => generateOne(alg));
  const initial = [...(options.initialKeys ?? [])];
  const spareCount = options.spareKeys ?? 1;
  const spares: Promise<PrivateJwk>[] = [];
  const pending = new Map<string, Promise<IssuerKey>>();
  const ready = new Map<string, IssuerKey>();
  // Initial keys taken by an issuer whose JWKS was served before its key was imported.
  const taken = new Map<string, (typeof initial)[number]>();
  const servedJwks = new Map<string, string>();

  const refill = () => {
    while (spares.length < spareCount) {
      const next = generate(algorithm);
      next.catch(() => {}); // surfaced when consumed
      spares.push(next);
    }
  };
  if (initial.length === 0) refill();

  function takeInitial(): (typeof initial)[number] | undefined {
    const preset = initial.shift();
    if (initial.length === 0) refill(); // the next new issuer finds a key ready
    return preset;
  }

  async function create(issuerId: string): Promise<IssuerKey> {
    const preset = taken.get(issuerId) ?? takeInitial();
    taken.delete(issuerId);
    if (preset) return await bindIssuerKey(preset.jwk, { ...preset, kid: issuerId, ...opts() });
    const jwk = spares.shift() ?? generate(algorithm);
    refill();
    return await bindIssuerKey(await jwk, { kid: issuerId, alg: algorithm, ...opts() });
  }
  const opts = () => ({ signer: options.signer });

  function issuerKey(issuerId: string): Promise<IssuerKey> {
    const done = ready.get(issuerId);
    if (done) return Promise.resolve(done);
    let promise = pending.get(issuerId);
    if (!promise) {
      promise = create(issuerId).then((key) => {
        ready.set(issuerId, key);
        pending.delete(issuerId);
        return key;
      }, (err) => {
        pending.delete(issuerId);
        throw err;
      });
      pending.set(issuerId, promise);
    }
    return promise;
  }

  return {
    issuerKey,
    peek: (issuerId) => ready.get(issuerId),
    async jwks(issuerId) {
      const key = await issuerKey(issuerId);
      return { keys: [key.publicJwk] };
    },
    jwksJson(issuerId) {
      const served = ready.get(issuerId)?.jwksJson ?? servedJwks.get(issuerId);
      if (served !== undefined) return Promise.resolve(served);
      const next = initial[0];
      if (pending.has(issuerId) || !next?.certificate) {
        return issuerKey(issuerId).then((key) => key.jwksJson);
      }
      taken.set(issuerId, takeInitial()!);
      const publicJwk = publicJwkOf(next.jwk, {
        ...next,
        kid: issuerId,
        certificate: next.certificate,
      });
      const json = JSON.stringify({ keys: [publicJwk] });
      servedJwks.set(issuerId, json);
      return Promise.resolve(json);
    },
    async signingKey(issuerId) {
      const key = await issuerKey(issuerId);
      return { kid: key.kid, alg: key.alg, key: key.privateKey };
    },
  };
}
