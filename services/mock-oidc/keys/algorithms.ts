/**
 * The ten JWS algorithms mock-oidc signs with, and what each needs from WebCrypto and OpenSSL.
 *
 * @module
 */

/** Supported `tokenProvider.keyProvider.algorithm` values (upstream's set, plus ES512 and EdDSA). */
export const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
] as const;

/** One of {@linkcode ALGORITHMS}. */
export type Algorithm = typeof ALGORITHMS[number];

/** How an algorithm maps onto key generation and signing. */
export interface AlgorithmSpec {
  kty: "RSA" | "EC" | "OKP";
  /** WebCrypto algorithm parameters for import/generate/sign/verify. */
  webcrypto: RsaHashedImportParams | EcKeyImportParams | { name: "Ed25519" };
  /** WebCrypto sign/verify parameters. */
  signParams: AlgorithmIdentifier | RsaPssParams | EcdsaParams;
  /** OpenSSL digest name; none for EdDSA (Ed25519 hashes inside the signature). */
  digest?: "SHA256" | "SHA384" | "SHA512";
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
  // EdDSA is Ed25519 only (RFC 8037 also names Ed448, which WebCrypto lacks).
  if (alg === "EdDSA") {
    return {
      kty: "OKP",
      webcrypto: { name: "Ed25519" },
      signParams: { name: "Ed25519" },
      pss: false,
    };
  }
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
  const curve = EC_CURVES[alg as "ES256" | "ES384" | "ES512"];
  return {
    kty: "EC",
    webcrypto: { name: "ECDSA", namedCurve: curve.namedCurve },
    signParams: { name: "ECDSA", hash },
    digest,
    pss: false,
    ecSize: curve.size,
  };
}

/** The curve of each ECDSA algorithm and the bytes of one of r/s in its signatures. */
const EC_CURVES = {
  ES256: { namedCurve: "P-256", size: 32 },
  ES384: { namedCurve: "P-384", size: 48 },
  ES512: { namedCurve: "P-521", size: 66 },
} as const;

/** The algorithm of a key of type `kty` on curve `crv`, when it has only one. */
export function algorithmOfCurve(kty: unknown, crv: unknown): Algorithm | undefined {
  if (kty === "OKP") return crv === "Ed25519" ? "EdDSA" : undefined;
  if (kty !== "EC") return undefined;
  for (const [alg, curve] of Object.entries(EC_CURVES)) {
    if (curve.namedCurve === crv) return alg as Algorithm;
  }
  return undefined;
}
