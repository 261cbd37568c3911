/**
 * The authentication chain to the Actions service: (App JWT → installation token) or PAT →
 * registration token → `runner-registration` (service URL + admin JWT). The admin connection is
 * cached and fetched again within 60 s of its `exp`, or at once after a 401.
 *
 * @module
 */
import type { KeyObject } from "node:crypto";
import { jwtExp } from "./jwt_exp.ts";
import type { ConfigUrl } from "./config_url.ts";
import { ActionsError } from "./errors.ts";
import { call, type HttpDeps, jsonOf } from "./http.ts";
import { serviceUrl } from "./service_url.ts";

/** The one credential source. */
export type GithubCredentials =
  | { kind: "app"; clientId: string; installationId: bigint; key: KeyObject }
  | { kind: "token"; token: string };

/** Actions-service base URL and admin token. */
export interface AdminConnection {
  url: string;
  token: string;
  /** Expiry in ms since the epoch (Infinity when the token carries no `exp`). */
  expiresAtMs: number;
}

/** Options of {@linkcode ActionsAuth}. */
export interface ActionsAuthOptions {
  configUrl: ConfigUrl;
  credentials: GithubCredentials;
  http: HttpDeps;
  now?: () => number;
}

const REFRESH_BEFORE_MS = 60_000;

/** Holds the admin connection and renews it before it expires. */
export class ActionsAuth {
  #opts: ActionsAuthOptions;
  #now: () => number;
  #conn: AdminConnection | undefined;
  #pending: Promise<AdminConnection> | undefined;
  /** How many times the chain ran (tests and logs). */
  fetches = 0;

  constructor(options: ActionsAuthOptions) {
    this.#opts = options;
    this.#now = options.now ?? Date.now;
  }

  /** The current admin connection, renewed when missing or within 60 s of expiry. */
  connection(signal?: AbortSignal): Promise<AdminConnection> {
    const c = this.#conn;
    if (c && c.expiresAtMs - REFRESH_BEFORE_MS > this.#now()) return Promise.resolve(c);
    this.#pending ??= this.#fetch(signal).finally(() => this.#pending = undefined);
    return this.#pending;
  }

  /** Forgets the connection (after a 401), so the next call runs the chain again. */
  invalidate(): void {
    this.#conn = undefined;
  }

  async #githubToken(signal?: AbortSignal): Promise<string> {
    const { credentials, configUrl, http } = this.#opts;
    if (credentials.kind === "token") return credentials.token;
    const { appJwt } = await import("./app_jwt.ts"); // node:crypto: only App credentials need it
    const jwt = appJwt(credentials.key, credentials.clientId, this.#now());
    const what = "get a GitHub App installation token";
    const res = await call(http, {
      what,
      method: "POST",
      url: `${configUrl.apiBase}/app/installations/${credentials.installationId}/access_tokens`,
      headers: {
        Authorization: `Bearer ${jwt}`,
        Accept: "application/vnd.github+json",
        "Content-Type": "application/vnd.github+json",
      },
      signal,
    });
    const body = jsonOf<{ token?: unknown }>(what, res);
    if (typeof body.token !== "string" || body.token === "") {
      throw new ActionsError("bad_response", `Cannot ${what}: the response has no token`);
    }
    return body.token;
  }

  async #fetch(signal?: AbortSignal): Promise<AdminConnection> {
    const { configUrl, http } = this.#opts;
    const ghToken = await this.#githubToken(signal);
    let what = "get a runner registration token";
    const reg = jsonOf<{ token?: unknown }>(
      what,
      await call(http, {
        what,
        method: "POST",
        url: configUrl.apiBase + configUrl.registrationTokenPath,
        headers: { Authorization: `Bearer ${ghToken}`, Accept: "application/vnd.github+json" },
        signal,
      }),
    );
    if (typeof reg.token !== "string" || reg.token === "") {
      throw new ActionsError("bad_response", `Cannot ${what}: the response has no token`);
    }
    what = "discover the Actions service";
    const res = jsonOf<{ url?: unknown; token?: unknown }>(
      what,
      await call(http, {
        what,
        method: "POST",
        url: `${configUrl.apiBase}/actions/runner-registration`,
        headers: { Authorization: `RemoteAuth ${reg.token}` },
        body: { url: configUrl.url, runner_event: "register" },
        retryUnauthorized: true,
        signal,
      }),
    );
    if (
      typeof res.url !== "string" || res.url === "" || typeof res.token !== "string" || !res.token
    ) {
      throw new ActionsError("bad_response", `Cannot ${what}: the response lacks url or token`);
    }
    serviceUrl(res.url, { what }); // an https URL without credentials, or the chain fails here
    const exp = jwtExp(res.token);
    this.fetches++;
    this.#conn = {
      url: res.url,
      token: res.token,
      expiresAtMs: exp === undefined ? Infinity : exp * 1000,
    };
    return this.#conn;
  }
}
