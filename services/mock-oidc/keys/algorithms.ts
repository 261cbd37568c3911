/**
 * The eight JWS algorithms mock-oidc signs with, and what each needs from WebCrypto and OpenSSL.
 *
 * @module
 */

/** Supported `tokenProvider.keyProvider.algorithm` values (upstream's set). */
export const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
] as const;

/** One of {@linkcode ALGORITHMS}. */
export type Algorithm = typeof ALGORITHMS[number];

/** How an algorithm maps onto key generation and signing. */
export interface AlgorithmSpec {
  kty: "RSA" | "EC";
  /** WebCrypto algorithm parameters for import/generate/sign/verify. */
  webcrypto: RsaHashedImportParams | EcKeyImportParams;
  /** WebCrypto sign/verify parameters. */
  signParams: AlgorithmIdentifier | RsaPssParams | EcdsaParams;
  /** OpenSSL digest name. */
  digest: "SHA256" | "SHA384" | "SHA512";
  /** RSA-PSS padding (salt length = digest length). */
  pss: boolean;
  /** Bytes of one of r/s in an ECDSA signature. */
  ecSize?: number;
}

/** True when `value` names a supported algorithm. */
export function isAlgorithm(value: unknown): value is Algorithm {
  return typeof value === "string" && (ALGORITHMS as readonly string[]).includes(value);
}

/** Lookup the key and signing parameters of `alg`. */
export function algorithmSpec(alg: Algorithm): AlgorithmSpec {
  const bits = alg.slice(2) as "256" | "384" | "512";
  const hash = `SHA-${bits}`;
  const digest = `SHA${bits}` as AlgorithmSpec["digest"];
  if (alg.startsWith("RS")) {
    return {
      kty: "RSA",
      webcrypto: { name: "RSASSA-PKCS1-v1_5", hash },
      signParams: { name: "RSASSA-PKCS1-v1_5" },
      digest,
      pss: false,
    };
  }
  if (alg.startsWith("PS")) {
    return {
      kty: "RSA",
      webcrypto: { name: "RSA-PSS", hash },
      signParams: { name: "RSA-PSS", saltLength: Number(bits) / 8 },
      digest,
      pss: true,
    };
  }
  const namedCurve = alg === "ES256" ? "P-256" : "P-384";
  return {
    kty: "EC",
    webcrypto: { name: "ECDSA", namedCurve },
    signParams: { name: "ECDSA", hash },
    digest,
    pss: false,
    ecSize: alg === "ES256" ? 32 : 48,
  };
}
