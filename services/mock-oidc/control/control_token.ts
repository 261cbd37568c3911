/**
 * The optional control-token gate: with `--control-token` set, every `/_mock` request must carry
 * it in `X-Mock-Control-Token` (or, as the browser console sends it, `Authorization: Bearer`).
 * The comparison hashes both sides first so that it takes the same time whatever the length or
 * content of the guess.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import { macEqual, sha256 } from "@svc/shared/sha256";

const CONTROL_TOKEN_HEADER = "x-mock-control-token";

/** Compares two secrets in time independent of where they differ: their equal-length digests. */
function constantTimeEqual(a: string, b: string): boolean {
  return macEqual(sha256(a), sha256(b));
}

/** The token a request presents: `X-Mock-Control-Token` first, else a Bearer credential. */
function presentedControlToken(req: Request): string | null {
  const header = req.headers.get(CONTROL_TOKEN_HEADER);
  if (header !== null) return header;
  const bearer = /^Bearer +(.+)$/i.exec(req.headers.get("authorization") ?? "");
  return bearer ? bearer[1] : null;
}

/** Throws a 401 problem unless `req` carries `token` (no gate when `token` is empty). */
export function checkControlToken(req: Request, token: string | undefined): void {
  if (!token) return;
  const presented = presentedControlToken(req);
  if (presented !== null && constantTimeEqual(presented, token)) return;
  throw new HttpError(
    401,
    presented === null ? "control_token_missing" : "control_token_invalid",
    presented === null
      ? "the X-Mock-Control-Token header (or Authorization: Bearer) is required"
      : "the control token presented does not match",
  );
}
