/**
 * What is known of each issuer beyond its id: a trailing slash on its issuer URL, and fields
 * that add to or replace those of its discovery document. Set in the JSON configuration
 * (`issuers`, kept for the life of the process) and through `PUT /_mock/issuers` (dropped by
 * `DELETE /_mock/issuers` and by reset, which fall back to the configured ones). Also the
 * issuer URL itself: from `--public-base-url` when set, else from the request
 * (`issuer_url.ts`).
 *
 * @module
 */

import { issuerPath } from "./issuer_id.ts";
import { originOf } from "./issuer_url.ts";

/** What an issuer's settings can say. */
export interface IssuerOptions {
  /** The issuer URL ends in `/` (`iss`, discovery `issuer`); endpoint URLs do not. */
  trailingSlash?: boolean;
  /** Fields added to, or replacing those of, the discovery documents (OIDC and RFC 8414). */
  discovery?: Record<string, unknown>;
}

/** Most issuers with settings from the control plane. */
export const MAX_ISSUER_SETTINGS = 1_000;

/** Options of {@linkcode Issuers}. */
export interface IssuersOptions {
  /** The JSON configuration's `issuers`, by id. */
  configured?: Readonly<Record<string, IssuerOptions>>;
  /** `--public-base-url`: the scheme, host and path prefix of every issuer URL, whatever `Host`. */
  publicBaseUrl?: string;
}

/** The settings of every issuer, and the issuer URL they make. */
export class Issuers {
  readonly #configured: Map<string, IssuerOptions>;
  readonly #set = new Map<string, IssuerOptions>();
  readonly #publicBaseUrl?: string;

  constructor(options: IssuersOptions = {}) {
    this.#configured = new Map(Object.entries(options.configured ?? {}));
    this.#publicBaseUrl = options.publicBaseUrl?.replace(/\/+$/, "");
  }

  /** The settings of `id`: the control plane's, else the configured ones, else none. */
  optionsOf(id: string): IssuerOptions {
    return this.#set.get(id) ?? this.#configured.get(id) ?? {};
  }

  /** The URL endpoint paths are appended to: the issuer URL without a trailing slash. */
  baseUrlOf(req: Request, id: string): string {
    return `${this.#publicBaseUrl ?? originOf(req)}/${issuerPath(id)}`;
  }

  /** The issuer URL of `id` for this request (`iss`, discovery `issuer`). */
  urlOf(req: Request, id: string): string {
    const base = this.baseUrlOf(req, id);
    return this.optionsOf(id).trailingSlash ? `${base}/` : base;
  }

  /**
   * Sets (replaces) the settings of `id` until reset; `false` when {@linkcode MAX_ISSUER_SETTINGS}
   * other issuers already have some.
   */
  set(id: string, options: IssuerOptions): boolean {
    if (!this.#set.has(id) && this.#set.size >= MAX_ISSUER_SETTINGS) return false;
    this.#set.set(id, options);
    return true;
  }

  /** Every issuer with settings, configured ones first, as `{issuer, source, ...options}`. */
  list(): { issuer: string; source: "config" | "control"; options: IssuerOptions }[] {
    const out: { issuer: string; source: "config" | "control"; options: IssuerOptions }[] = [];
    for (const [issuer, options] of this.#configured) {
      if (!this.#set.has(issuer)) out.push({ issuer, source: "config", options });
    }
    for (const [issuer, options] of this.#set) out.push({ issuer, source: "control", options });
    return out;
  }

  /** Drops the control plane's settings: the configured ones apply again. */
  clear(): void {
    this.#set.clear();
  }
}
