/**
 * The expiry of the tokens GitHub hands out (JWTs), read without verifying them: when to fetch the
 * next one. Apart from `app_jwt.ts`, whose signing needs node:crypto.
 *
 * @module
 */
import { decodeBase64 } from "@svc/shared/base64";

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
