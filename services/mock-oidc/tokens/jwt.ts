/**
 * Compact JWS encoding, decoding and self-verification. Hand-written rather than jose because
 * the hot path needs the synchronous OpenSSL signer and no per-call key import.
 *
 * @module
 */

import { algorithmSpec } from "../keys/algorithms.ts";
import type { IssuerKey } from "../keys/key_material.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

type Base64Codec = {
  toBase64?: (this: Uint8Array, options: { alphabet: string; omitPadding: boolean }) => string;
};
const nativeToBase64 = (Uint8Array.prototype as Base64Codec).toBase64;

/** base64url without padding (native `Uint8Array.prototype.toBase64` when present). */
export function base64url(bytes: Uint8Array): string {
  if (nativeToBase64) {
    return nativeToBase64.call(bytes, { alphabet: "base64url", omitPadding: true });
  }
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decode base64url (padding optional); throws on bad input. */
function fromBase64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - b64.length % 4) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Sign `payload` with the issuer key into a compact JWS. */
export async function signJwt(
  key: IssuerKey,
  header: { typ?: string },
  payload: Record<string, unknown>,
): Promise<string> {
  const head = base64url(
    encoder.encode(JSON.stringify({ kid: key.kid, typ: header.typ ?? "JWT", alg: key.alg })),
  );
  const input = `${head}.${base64url(encoder.encode(JSON.stringify(payload)))}`;
  const signature = await key.sign(encoder.encode(input));
  return `${input}.${base64url(signature)}`;
}

/** A JWT split into its parts; no signature check. */
export interface DecodedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Uint8Array;
}

/** Decode a compact JWS (or unsecured JWT). Returns undefined when it is not one. */
export function decodeJwt(token: string): DecodedJwt | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(decoder.decode(fromBase64url(parts[0])));
    const claims = JSON.parse(decoder.decode(fromBase64url(parts[1])));
    if (!isObject(header) || !isObject(claims)) return undefined;
    return {
      header,
      claims,
      signingInput: `${parts[0]}.${parts[1]}`,
      signature: fromBase64url(parts[2]),
    };
  } catch {
    return undefined;
  }
}

/** True when the token's signature verifies with the issuer key and names its `kid`/`alg`. */
export async function verifySignature(key: IssuerKey, jwt: DecodedJwt): Promise<boolean> {
  if (jwt.header.alg !== key.alg || (jwt.header.kid ?? key.kid) !== key.kid) return false;
  try {
    return await crypto.subtle.verify(
      algorithmSpec(key.alg).signParams,
      key.publicKey,
      jwt.signature as BufferSource,
      encoder.encode(jwt.signingInput),
    );
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
