/**
 * Compact JWS encoding, decoding and self-verification. Hand-written rather than jose because
 * the hot path needs the synchronous OpenSSL signer and no per-call key import.
 *
 * @module
 */

import { decodeBase64, encodeBase64 } from "@svc/shared/base64";
import { algorithmSpec } from "../keys/algorithms.ts";
import type { IssuerKey } from "../keys/key_material.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** base64url without padding (the kit's codec). */
export function base64url(bytes: Uint8Array): string {
  return encodeBase64(bytes, { url: true });
}

/** Decode base64url (padding optional); throws on bad input. */
function fromBase64url(text: string): Uint8Array {
  return decodeBase64(text, { url: true });
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
