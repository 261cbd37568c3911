/**
 * Keys that change: each issuer starts with its one key (`kid` = issuer id, `key_store.ts`), and
 * the control plane (`/_mock/keys`) can add keys, make one the signing (active) key and retire
 * keys. A retired key signs nothing; it stays in the JWKS, and tokens it signed still verify, for
 * the grace period the caller chose (counted on the process clock), then it is gone from both.
 * Issuers never rotated take the store's fast path (its key and pre-serialised JWKS). Keys survive
 * reset, as the store's do.
 *
 * @module
 */

import type { Clock } from "../clock.ts";
import type { Algorithm } from "./algorithms.ts";
import {
  bindIssuerKey,
  generatePrivateJwk,
  type IssuerKey,
  type PrivateJwk,
} from "./key_material.ts";
import type { KeyStore } from "./key_store.ts";
import type { Signer } from "./signer.ts";

/** Most keys one issuer holds (the first included). */
export const MAX_KEYS_PER_ISSUER = 10;
/** Longest grace period of a retired key, seconds (30 days). */
export const MAX_GRACE_SECONDS = 30 * 24 * 3600;
/** Longest `kid`. */
export const MAX_KID_LENGTH = 128;

/** A key of an issuer's ring and where it stands. */
export interface RingKey {
  key: IssuerKey;
  /** `active` signs; `published` verifies; `retired` verifies until `retiredUntil`. */
  status: "active" | "published" | "retired";
  /** Retired keys: the end of their grace period, epoch ms on the process clock. */
  retiredUntil?: number;
}

/** Why a key operation cannot be done: the control plane answers 404 or 409 with it. */
export class KeyRingError extends Error {
  constructor(readonly status: 404 | 409, message: string) {
    super(message);
    this.name = "KeyRingError";
  }
}

/** A key store whose issuers can hold several keys. */
export interface RotatingKeyStore extends KeyStore {
  /** The key that verifies a token of `issuerId` naming `kid` (active, published or in grace). */
  verificationKey(issuerId: string, kid: string | undefined): Promise<IssuerKey | undefined>;
  /**
   * The key a mint signs with: of `kid` and/or algorithm `alg`, the active one first; none when
   * the issuer has no such key that still verifies.
   */
  mintKey(issuerId: string, want: { kid?: string; alg?: string }): Promise<IssuerKey | undefined>;
  /** The JWKS body of the issuer: every key that verifies. */
  jwksJson(issuerId: string): Promise<string>;
  /** Adds a key (generated for `alg`); `activate` makes it the signing key. */
  addKey(
    issuerId: string,
    options: { kid?: string; alg?: Algorithm; activate?: boolean },
  ): Promise<RingKey>;
  /** Makes `kid` the signing key; the previous one stays published. */
  activateKey(issuerId: string, kid: string): Promise<RingKey>;
  /** Retires `kid` (not the active key) for `graceSeconds`. */
  retireKey(issuerId: string, kid: string, graceSeconds: number): Promise<RingKey>;
  /** The keys of `issuerId` that still verify, the active first. */
  listKeys(issuerId: string): Promise<RingKey[]>;
}

/** Options of {@linkcode createKeyRing}. */
export interface KeyRingOptions {
  clock: Clock;
  /** Algorithm of added keys without one. @default "RS256" */
  algorithm?: Algorithm;
  signer?: Signer;
  /** Key generator (tests inject a fast one). */
  generate?: (alg: Algorithm) => Promise<PrivateJwk>;
}

/** Wraps `store` with per-issuer key rings. */
export function createKeyRing(store: KeyStore, options: KeyRingOptions): RotatingKeyStore {
  const rings = new Map<string, RingKey[]>();
  const generate = options.generate ?? generatePrivateJwk;

  /** The ring of `issuerId` without the keys whose grace is over (created from the store's key). */
  async function ring(issuerId: string): Promise<RingKey[]> {
    let keys = rings.get(issuerId);
    if (!keys) {
      keys = [{ key: await store.issuerKey(issuerId), status: "active" }];
      if (!rings.has(issuerId)) rings.set(issuerId, keys);
      keys = rings.get(issuerId)!;
    }
    const now = options.clock.now();
    const live = keys.filter((k) => k.status !== "retired" || k.retiredUntil! > now);
    if (live.length === keys.length) return keys;
    rings.set(issuerId, live);
    return live;
  }

  function find(keys: RingKey[], issuerId: string, kid: string): RingKey {
    const found = keys.find((k) => k.key.kid === kid);
    if (!found) throw new KeyRingError(404, `issuer ${issuerId} has no key ${kid}`);
    return found;
  }

  return {
    ...store,
    async issuerKey(issuerId) {
      if (!rings.has(issuerId)) return await store.issuerKey(issuerId);
      return (await ring(issuerId)).find((k) => k.status === "active")!.key;
    },
    async signingKey(issuerId) {
      const key = await this.issuerKey(issuerId);
      return { kid: key.kid, alg: key.alg, key: key.privateKey };
    },
    async jwks(issuerId) {
      return JSON.parse(await this.jwksJson(issuerId));
    },
    async jwksJson(issuerId) {
      if (!rings.has(issuerId)) return await store.jwksJson(issuerId);
      return JSON.stringify({ keys: (await ring(issuerId)).map((k) => k.key.publicJwk) });
    },
    async verificationKey(issuerId, kid) {
      if (!rings.has(issuerId)) {
        const key = await store.issuerKey(issuerId);
        return kid === undefined || kid === key.kid ? key : undefined;
      }
      const keys = await ring(issuerId);
      if (kid === undefined) return keys.find((k) => k.status === "active")!.key;
      return keys.find((k) => k.key.kid === kid)?.key;
    },
    async mintKey(issuerId, want) {
      const keys = rings.has(issuerId)
        ? await this.listKeys(issuerId)
        : [{ key: await store.issuerKey(issuerId), status: "active" as const }];
      return keys.find((k) =>
        (want.kid === undefined || k.key.kid === want.kid) &&
        (want.alg === undefined || k.key.alg === want.alg)
      )?.key;
    },
    async addKey(issuerId, add) {
      const keys = await ring(issuerId);
      const kid = add.kid ?? crypto.randomUUID();
      if (keys.some((k) => k.key.kid === kid)) {
        throw new KeyRingError(409, `issuer ${issuerId} already has a key ${kid}`);
      }
      if (keys.length >= MAX_KEYS_PER_ISSUER) {
        throw new KeyRingError(
          409,
          `issuer ${issuerId} holds ${MAX_KEYS_PER_ISSUER} keys; retire one and let its grace end`,
        );
      }
      const alg = add.alg ?? options.algorithm ?? "RS256";
      const key = await bindIssuerKey(await generate(alg), { kid, alg, signer: options.signer });
      const entry: RingKey = { key, status: "published" };
      keys.push(entry);
      if (add.activate) await this.activateKey(issuerId, kid);
      return entry;
    },
    async activateKey(issuerId, kid) {
      const keys = await ring(issuerId);
      const entry = find(keys, issuerId, kid);
      if (entry.status === "retired") {
        throw new KeyRingError(409, `key ${kid} is retired; add a new key instead`);
      }
      for (const k of keys) if (k.status === "active") k.status = "published";
      entry.status = "active";
      return entry;
    },
    async retireKey(issuerId, kid, graceSeconds) {
      const keys = await ring(issuerId);
      const entry = find(keys, issuerId, kid);
      if (entry.status === "active") {
        throw new KeyRingError(409, `key ${kid} signs for ${issuerId}; activate another first`);
      }
      entry.status = "retired";
      entry.retiredUntil = options.clock.now() + graceSeconds * 1000;
      // A grace of 0 ends at once.
      return entry;
    },
    async listKeys(issuerId) {
      const keys = await ring(issuerId);
      return [...keys].sort((a, b) =>
        Number(b.status === "active") - Number(a.status === "active")
      );
    },
  };
}
