/**
 * The GitHub App JWT: RS256, `iss` = client ID, `iat` = now − 60 s (clock skew), `exp` = iat +
 * 9 min (GitHub allows 10). Accepts PKCS#1 (what GitHub hands out) and PKCS#8 PEM keys. Loaded
 * only with App credentials (`load_settings.ts`, `auth.ts` import it when they need it): it holds
 * node:crypto, which a token-credential start need not load.
 *
 * @module
 */
import { encodeBase64 } from "@svc/shared/base64";
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
