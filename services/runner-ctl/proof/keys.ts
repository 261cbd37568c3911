/**
 * Ed25519 keys for job proofs: the signing key from one PKCS#8 PEM block (as `openssl genpkey
 * -algorithm ed25519` writes it), the enrolled public key from one SubjectPublicKeyInfo PEM block
 * (as `openssl pkey -pubout` writes it), and the `keyid`: the lowercase hex SHA-256 of the raw
 * 32-byte public key.
 *
 * @module
 */
import { decodeBase64 } from "./base64.ts";
import { ProofError } from "./errors.ts";

/** A signing key with its public half and key id. */
export interface SigningKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** Raw 32-byte public key. */
  publicRaw: Uint8Array;
  keyid: string;
}

/** A verification key with its key id. */
export interface VerifyKey {
  publicKey: CryptoKey;
  keyid: string;
}

const ED25519 = { name: "Ed25519" } as const;
const PEM_RE = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]+?)\r?\n?-----END \1-----/g;
const SPKI_PREFIX = "302a300506032b6570032100";
const PKCS8_PREFIX = "302e020100300506032b657004220420";

/** Lowercase hex SHA-256 of the raw 32-byte public key. */
export async function keyIdOf(publicRaw: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", publicRaw.slice()));
  return toHex(digest);
}

/**
 * Imports exactly one `PRIVATE KEY` (PKCS#8) PEM block holding an Ed25519 key.
 *
 * @throws {ProofError} `bad_key` (the message never holds key bytes).
 */
export async function importSigningKeyPem(pem: string): Promise<SigningKey> {
  const der = onePemBlock(pem, "PRIVATE KEY", "signing key");
  if (der.length !== 48 || toHex(der.subarray(0, 16)) !== PKCS8_PREFIX) {
    throw new ProofError("bad_key", "Cannot load signing key: not a PKCS#8 Ed25519 private key");
  }
  let jwk: JsonWebKey;
  let privateKey: CryptoKey;
  try {
    const extractable = await crypto.subtle.importKey("pkcs8", der.slice(), ED25519, true, [
      "sign",
    ]);
    jwk = await crypto.subtle.exportKey("jwk", extractable);
    privateKey = await crypto.subtle.importKey("pkcs8", der.slice(), ED25519, false, ["sign"]);
  } catch {
    throw new ProofError("bad_key", "Cannot load signing key: not a usable Ed25519 key");
  }
  const publicRaw = decodeBase64(jwk.x ?? "", "signing key");
  const publicKey = await crypto.subtle.importKey("raw", publicRaw.slice(), ED25519, true, [
    "verify",
  ]);
  return { privateKey, publicKey, publicRaw, keyid: await keyIdOf(publicRaw) };
}

/**
 * Imports exactly one `PUBLIC KEY` (SubjectPublicKeyInfo) PEM block holding an Ed25519 key.
 *
 * @throws {ProofError} `bad_key`.
 */
export async function importPublicKeyPem(pem: string): Promise<VerifyKey> {
  const der = onePemBlock(pem, "PUBLIC KEY", "public key");
  if (der.length !== 44 || toHex(der.subarray(0, 12)) !== SPKI_PREFIX) {
    throw new ProofError("bad_key", "Cannot load public key: not an Ed25519 SubjectPublicKeyInfo");
  }
  const raw = der.slice(12);
  try {
    const publicKey = await crypto.subtle.importKey("spki", der.slice(), ED25519, true, [
      "verify",
    ]);
    return { publicKey, keyid: await keyIdOf(raw) };
  } catch {
    throw new ProofError("bad_key", "Cannot load public key: not a usable Ed25519 key");
  }
}

function onePemBlock(pem: string, label: string, what: string): Uint8Array {
  const blocks = [...pem.matchAll(PEM_RE)];
  const rest = pem.replace(PEM_RE, "").trim();
  if (blocks.length !== 1 || rest !== "") {
    throw new ProofError("bad_key", `Cannot load ${what}: expected exactly one PEM block`);
  }
  if (blocks[0][1] !== label) {
    throw new ProofError("bad_key", `Cannot load ${what}: expected a ${label} PEM block`);
  }
  try {
    return decodeBase64(blocks[0][2].replace(/\r?\n/g, ""), what);
  } catch {
    throw new ProofError("bad_key", `Cannot load ${what}: PEM body is not base64`);
  }
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
