/**
 * The upstream JSON configuration (`JSON_CONFIG`, `JSON_CONFIG_PATH`, `./config.json`), parsed
 * once at start into {@linkcode OidcConfig}. Unknown keys are ignored; bad values throw a
 * `SettingsError` naming the key.
 *
 * @module
 */

import { type Algorithm, ALGORITHMS, isAlgorithm } from "../keys/algorithms.ts";
import { algorithmOfJwk, type PrivateJwk } from "../keys/key_material.ts";
import type { TokenCallback } from "../tokens/callback.ts";
import { configError, isRecord } from "./config_error.ts";
import { parseTokenCallback } from "./token_callbacks.ts";
import { issuerIdProblem } from "../protocol/issuer_id.ts";
import type { IssuerOptions } from "../protocol/issuers.ts";

/** Resolved JSON configuration. */
export interface OidcConfig {
  interactiveLogin: boolean;
  rotateRefreshToken: boolean;
  staticAssetsPath?: string;
  loginPagePath?: string;
  /** `tokenProvider.systemTime` in epoch ms: the clock starts frozen there. */
  systemTime?: number;
  /** Algorithm of generated keys. */
  algorithm: Algorithm;
  /** Keys preloaded for the first issuers touched. */
  initialKeys: { jwk: PrivateJwk; alg: Algorithm }[];
  /** No `tokenProvider` at all: use the bundled deterministic RSA keys (as upstream). */
  bundledKeys: boolean;
  tokenCallbacks: TokenCallback[];
  /** `issuers`: per-issuer settings (trailing slash, discovery fields), by issuer id. */
  issuers: Record<string, IssuerOptions>;
  /** `loginPresets`: users the login page offers. */
  loginPresets: LoginPreset[];
  /** `httpServer.ssl` present: serve TLS with an in-process self-signed certificate. */
  selfSignedTls: boolean;
}

/** Configuration with nothing supplied. */
export const DEFAULT_CONFIG: OidcConfig = {
  interactiveLogin: false,
  rotateRefreshToken: false,
  algorithm: "RS256",
  initialKeys: [],
  bundledKeys: true,
  tokenCallbacks: [],
  issuers: {},
  loginPresets: [],
  selfSignedTls: false,
};

/** Parse configuration JSON text; `source` names it in errors (e.g. `JSON_CONFIG`). */
export function parseJsonConfig(text: string, source: string): OidcConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw configError(source, `not valid JSON (${(err as Error).message})`);
  }
  if (!isRecord(raw)) throw configError(source, "must be a JSON object");
  const config: OidcConfig = {
    ...DEFAULT_CONFIG,
    initialKeys: [],
    tokenCallbacks: [],
    issuers: {},
    loginPresets: [],
  };
  config.interactiveLogin = bool(raw.interactiveLogin, "interactiveLogin", false);
  config.rotateRefreshToken = bool(raw.rotateRefreshToken, "rotateRefreshToken", false);
  config.staticAssetsPath = optionalString(raw.staticAssetsPath, "staticAssetsPath");
  config.loginPagePath = optionalString(raw.loginPagePath, "loginPagePath");
  if (raw.tokenProvider !== undefined) {
    config.bundledKeys = false;
    if (isRecord(raw.tokenProvider)) parseTokenProvider(raw.tokenProvider, config);
  }
  if (raw.tokenCallbacks !== undefined) {
    if (!Array.isArray(raw.tokenCallbacks)) {
      throw configError("tokenCallbacks", "must be a list");
    }
    config.tokenCallbacks = raw.tokenCallbacks.map((c, i) =>
      parseTokenCallback(c, `tokenCallbacks[${i}]`)
    );
  }
  if (raw.issuers !== undefined && raw.issuers !== null) config.issuers = parseIssuers(raw.issuers);
  config.loginPresets = parseLoginPresets(raw.loginPresets);
  config.selfSignedTls = parseHttpServer(raw.httpServer);
  return config;
}

/** `issuers`: a list of `{issuer, trailingSlash?, discovery?}`, one entry per issuer id. */
function parseIssuers(value: unknown): Record<string, IssuerOptions> {
  if (!Array.isArray(value)) throw configError("issuers", "must be a list");
  const out: Record<string, IssuerOptions> = {};
  value.forEach((entry, i) => {
    const key = `issuers[${i}]`;
    if (!isRecord(entry)) throw configError(key, "must be an object");
    if (typeof entry.issuer !== "string") throw configError(`${key}.issuer`, "must be a string");
    const problem = issuerIdProblem(entry.issuer);
    if (problem) throw configError(`${key}.issuer`, problem);
    if (Object.hasOwn(out, entry.issuer)) {
      throw configError(`${key}.issuer`, `${entry.issuer} is listed twice`);
    }
    const options: IssuerOptions = {};
    if (entry.trailingSlash !== undefined) {
      options.trailingSlash = bool(entry.trailingSlash, `${key}.trailingSlash`, false);
    }
    if (entry.discovery !== undefined) {
      if (!isRecord(entry.discovery)) throw configError(`${key}.discovery`, "must be an object");
      options.discovery = entry.discovery;
    }
    out[entry.issuer] = options;
  });
  return out;
}

function parseTokenProvider(provider: Record<string, unknown>, config: OidcConfig): void {
  if (provider.systemTime !== undefined) {
    const ms = typeof provider.systemTime === "string" ? Date.parse(provider.systemTime) : NaN;
    if (Number.isNaN(ms)) {
      throw configError("tokenProvider.systemTime", "must be an RFC 3339 instant");
    }
    config.systemTime = ms;
  }
  const keyProvider = provider.keyProvider;
  if (keyProvider === undefined || keyProvider === null) return;
  if (!isRecord(keyProvider)) {
    throw configError("tokenProvider.keyProvider", "must be an object");
  }
  if (keyProvider.algorithm !== undefined) {
    if (!isAlgorithm(keyProvider.algorithm)) {
      throw configError(
        "tokenProvider.keyProvider.algorithm",
        `unsupported algorithm (expected one of ${ALGORITHMS.join(", ")})`,
      );
    }
    config.algorithm = keyProvider.algorithm;
  }
  const initial = keyProvider.initialKeys;
  if (initial === undefined || initial === null) return;
  const list = Array.isArray(initial) ? initial : [initial];
  config.initialKeys = list.map((item, i) =>
    parseInitialKey(item, `tokenProvider.keyProvider.initialKeys[${i}]`, config.algorithm)
  );
}

function parseInitialKey(
  item: unknown,
  key: string,
  fallback: Algorithm,
): { jwk: PrivateJwk; alg: Algorithm } {
  let jwk = item;
  if (typeof item === "string") {
    try {
      jwk = JSON.parse(item);
    } catch {
      throw configError(key, "is a string but not a serialized JWK");
    }
  }
  if (!isRecord(jwk) || typeof jwk.kty !== "string") {
    throw configError(key, "must be a JWK (object or JSON string)");
  }
  if (typeof jwk.d !== "string") throw configError(key, "must be a private key (no `d`)");
  const alg = algorithmOfJwk(jwk as PrivateJwk, fallback);
  if (!alg) throw configError(key, `unsupported key type or alg for ${fallback}`);
  return { jwk: jwk as PrivateJwk, alg };
}

function parseHttpServer(value: unknown): boolean {
  if (value === undefined || value === null || typeof value === "string") return false;
  if (!isRecord(value)) throw configError("httpServer", "must be a string or an object");
  if (value.ssl === undefined || value.ssl === null) return false;
  if (!isRecord(value.ssl)) throw configError("httpServer.ssl", "must be an object");
  if (value.ssl.keystoreFile !== undefined) {
    throw configError(
      "httpServer.ssl.keystoreFile",
      "PKCS#12 keystores are not supported; convert one to PEM with " +
        "`openssl pkcs12 -in keystore.p12 -nokeys -out cert.pem` and " +
        "`openssl pkcs12 -in keystore.p12 -nocerts -nodes -out key.pem`, then pass " +
        "--tls-cert-file cert.pem --tls-key-file key.pem",
    );
  }
  return true;
}

/** A boolean; like upstream's Jackson, the strings "true" and "false" count too. */
function bool(value: unknown, key: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (value === "true" || value === "false") return value === "true";
  if (typeof value !== "boolean") throw configError(key, "must be true or false");
  return value;
}

function optionalString(value: unknown, key: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw configError(key, "must be a string");
  return value;
}

/** A user the login page offers. */
export interface LoginPreset {
  /** Becomes the token subject, as a typed username does. */
  username: string;
  /** Claims added to the tokens, as the login page's claims field adds them. */
  claims?: Record<string, unknown>;
}

/** Most presets in `loginPresets`. */
export const MAX_LOGIN_PRESETS = 50;
/** Longest preset username, characters. */
export const MAX_PRESET_USERNAME_CHARS = 256;
/** Largest preset `claims`, characters of its JSON. */
export const MAX_PRESET_CLAIMS_CHARS = 4096;

// deno-lint-ignore no-control-regex -- control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Parses `loginPresets`, users the login page offers (absent or null: none); here rather than in
 * a module of its own, so that a start reads no extra file.
 *
 * @throws {SettingsError} naming the entry.
 */
export function parseLoginPresets(value: unknown): LoginPreset[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw configError("loginPresets", "must be a list");
  if (value.length > MAX_LOGIN_PRESETS) {
    throw configError(
      "loginPresets",
      `at most ${MAX_LOGIN_PRESETS} presets (got ${value.length})`,
    );
  }
  const seen = new Set<string>();
  return value.map((entry, i) => {
    const key = `loginPresets[${i}]`;
    if (!isRecord(entry)) throw configError(key, "must be an object");
    const { username, claims } = entry;
    if (
      typeof username !== "string" || username.length === 0 ||
      username.length > MAX_PRESET_USERNAME_CHARS || CONTROL.test(username)
    ) {
      throw configError(
        `${key}.username`,
        `must be a string of 1 to ${MAX_PRESET_USERNAME_CHARS} characters without control characters`,
      );
    }
    if (seen.has(username)) throw configError(`${key}.username`, "is listed twice");
    seen.add(username);
    if (claims === undefined || claims === null) return { username };
    if (!isRecord(claims)) throw configError(`${key}.claims`, "must be an object");
    const size = JSON.stringify(claims).length;
    if (size > MAX_PRESET_CLAIMS_CHARS) {
      throw configError(
        `${key}.claims`,
        `at most ${MAX_PRESET_CLAIMS_CHARS} characters as JSON (got ${size})`,
      );
    }
    return { username, claims };
  });
}
