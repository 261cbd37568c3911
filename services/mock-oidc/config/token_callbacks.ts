/**
 * `tokenCallbacks` entries in upstream's key names (`issuerId`, `requestParam`, `tokenExpiry`,
 * `typeHeader`) and ours (`issuer`, `param`, `expirySeconds`, `typ`), normalised to
 * {@linkcode TokenCallback}.
 *
 * @module
 */

import { patternProblem } from "../tokens/safe_pattern.ts";
import type { RequestMapping, TokenCallback } from "../tokens/callback.ts";
import { configError, isRecord } from "./config_error.ts";

/** Parse one callback; `path` prefixes error keys (e.g. `tokenCallbacks[0]`). */
export function parseTokenCallback(raw: unknown, path: string): TokenCallback {
  if (!isRecord(raw)) throw configError(path, "must be an object");
  const issuer = raw.issuer ?? raw.issuerId;
  if (typeof issuer !== "string" || issuer === "" || issuer.includes("/")) {
    throw configError(`${path}.issuerId`, "must be a one-segment issuer id");
  }
  const callback: TokenCallback = { issuer };
  let expiry = raw.expirySeconds ?? raw.tokenExpiry;
  // Upstream's Jackson reads a numeric string ("120") as the number.
  if (typeof expiry === "string" && /^\d{1,15}$/.test(expiry)) expiry = Number(expiry);
  if (expiry !== undefined) {
    if (typeof expiry !== "number" || !Number.isInteger(expiry) || expiry < 0) {
      throw configError(`${path}.tokenExpiry`, "must be a non-negative integer (seconds)");
    }
    callback.expirySeconds = expiry;
  }
  if (raw.subject !== undefined) callback.subject = str(raw.subject, `${path}.subject`);
  if (raw.audience !== undefined) {
    const aud = typeof raw.audience === "string" ? [raw.audience] : raw.audience;
    if (!Array.isArray(aud) || aud.some((a) => typeof a !== "string")) {
      throw configError(`${path}.audience`, "must be a list of strings");
    }
    callback.audience = aud;
  }
  if (raw.claims !== undefined) callback.claims = obj(raw.claims, `${path}.claims`);
  const typ = raw.typ ?? raw.typeHeader;
  if (typ !== undefined) callback.typ = str(typ, `${path}.typ`);
  if (raw.requestMappings !== undefined) {
    if (!Array.isArray(raw.requestMappings)) {
      throw configError(`${path}.requestMappings`, "must be a list");
    }
    callback.requestMappings = raw.requestMappings.map((m, i) =>
      parseMapping(m, `${path}.requestMappings[${i}]`)
    );
  }
  return callback;
}

function parseMapping(raw: unknown, path: string): RequestMapping {
  if (!isRecord(raw)) throw configError(path, "must be an object");
  const param = raw.param ?? raw.requestParam;
  if (typeof param !== "string" || param === "") {
    throw configError(`${path}.requestParam`, "must be a non-empty string");
  }
  const mapping: RequestMapping = {
    param,
    match: raw.match === undefined ? "*" : str(raw.match, `${path}.match`),
  };
  const unsafe = patternProblem(mapping.match);
  if (unsafe) throw configError(`${path}.match`, `is refused: ${unsafe} (see --help)`);
  const typeHeader = raw.typeHeader ?? raw.typ;
  if (typeHeader !== undefined) mapping.typeHeader = str(typeHeader, `${path}.typeHeader`);
  if (raw.claims !== undefined) mapping.claims = obj(raw.claims, `${path}.claims`);
  return mapping;
}

function str(value: unknown, key: string): string {
  if (typeof value !== "string") throw configError(key, "must be a string");
  return value;
}

function obj(value: unknown, key: string): Record<string, unknown> {
  if (!isRecord(value)) throw configError(key, "must be an object");
  return value;
}
