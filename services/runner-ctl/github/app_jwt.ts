/**
 * The GitHub App JWT: RS256, `iss` = client ID, `iat` = now − 60 s (clock skew), `exp` = iat +
 * 9 min (GitHub allows 10). Accepts PKCS#1 (what GitHub hands out) and PKCS#8 PEM keys.
 *
 * @module
 */
import { decodeBase64, encodeBase64 } from "@svc/shared/base64";
import { createPrivateKey, type KeyObject, sign } from "node:crypto";

function b64url(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return encodeBase64(bytes, { url: true });
}

/**
 * Loads an RSA private key from PEM text.
 *
 * @throws {Error} "Cannot load the GitHub App private key: …" without the key text.
 */
export function loadAppKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    throw new Error("Cannot load the GitHub App private key: not a PEM private key");
  }
  if (key.asymmetricKeyType !== "rsa") {
    throw new Error("Cannot load the GitHub App private key: not an RSA key");
  }
  return key;
}

/** Signs an App JWT for `clientId` at `nowMs`. */
export function appJwt(key: KeyObject, clientId: string, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000) - 60;
  const header = b64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
  const payload = b64url(JSON.stringify({ iat, exp: iat + 540, iss: clientId }));
  const input = `${header}.${payload}`;
  const sig = sign("sha256", new TextEncoder().encode(input), key);
  return `${input}.${b64url(new Uint8Array(sig))}`;
}

/** The `exp` claim (seconds) of a JWT, decoded without verifying; undefined when absent. */
export function jwtExp(token: string): number | undefined {
  const part = token.split(".")[1];
  if (!part) return undefined;
  try {
    const json = new TextDecoder().decode(decodeBase64(part, { url: true }));
    const exp = JSON.parse(json).exp;
    return typeof exp === "number" ? exp : undefined;
  } catch {
    return undefined;
  }
}
