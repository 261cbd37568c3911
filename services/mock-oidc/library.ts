/**
 * mock-oidc for tests: {@linkcode MockOidc.start} runs the provider in-process on a free loopback
 * port, {@linkcode MockOidc.attach} speaks to one already running; either way the handle has the
 * issuer URLs and a typed method per control-plane route (`/_mock`), and `await using` stops what
 * it started.
 *
 * @example A test that mints a token and reads it back from the capture log
 * ```ts ignore
 * import { MockOidc } from "@svc/mock-oidc";
 *
 * await using oidc = await MockOidc.start();
 * const { token } = await oidc.mint({ issuer: "default", subject: "alice" });
 * await fetch(`${oidc.issuerUrl("default")}/userinfo`, {
 *   headers: { authorization: `Bearer ${token}` },
 * }).then((r) => r.body?.cancel());
 * const seen = await oidc.takeRequest({ endpoint: "userinfo" });
 * console.log(seen?.headers?.authorization);
 * ```
 *
 * @module
 */

import type { StartedServer } from "@svc/shared/server";
import type { Algorithm } from "./keys/algorithms.ts";
import type { MintRequest } from "./control/mint.ts";
import type { CapturedRequest } from "./control/request_log.ts";
import type { Fault, FaultEndpoint, FaultRequest } from "./protocol/fault_queue.ts";
import type { RequestMapping, TokenCallback as Scenario } from "./tokens/callback.ts";

// The control plane's own types: what the handle sends and gets back is what the routes read and
// answer, one definition each.
export type {
  Algorithm,
  CapturedRequest,
  Fault,
  FaultEndpoint,
  FaultRequest,
  MintRequest,
  RequestMapping,
  Scenario,
};

/** A protocol endpoint captured requests are filtered on. */
export type CaptureEndpoint =
  | "authorize"
  | "token"
  | "userinfo"
  | "introspect"
  | "revoke"
  | "endsession"
  | "jwks";

/** What `POST /_mock/mint` answers. */
export interface MintedToken {
  /** The compact JWS. */
  token: string;
  /** The key that signed it. */
  kid: string;
  /** Its algorithm. */
  algorithm: Algorithm;
  /** Its `iss`. */
  issuer: string;
  /** Its `exp`, ISO 8601. */
  expiresAt: string;
  /** Every claim. */
  claims: Record<string, unknown>;
}

/** One key of an issuer, as `/_mock/keys` lists it. */
export interface KeyInfo {
  /** Its `kid`. */
  kid: string;
  /** Its algorithm. */
  algorithm: Algorithm;
  /** `active` signs; `published` verifies; `retired` verifies until `retiredUntil`. */
  status: "active" | "published" | "retired";
  /** When a retired key leaves the JWKS (ISO 8601, the process clock). */
  retiredUntil?: string;
}

/** The process clock, as `/_mock/clock` answers. */
export interface ClockState {
  /** Whether it stands still. */
  frozen: boolean;
  /** Its time, ISO 8601. */
  now: string;
}

/** Options of {@linkcode MockOidc.start}. */
export interface StartOptions {
  /** Upstream's JSON configuration (`JSON_CONFIG`). @default {{}} */
  config?: Record<string, unknown>;
  /**
   * Further flags, as on the command line (`["--control-token", "t"]`). The API listens on
   * `127.0.0.1:0` and the metrics listener is off unless these say otherwise; logs are at `error`
   * unless `--log-level` is given.
   */
  args?: string[];
}

/** Options of {@linkcode MockOidc.attach}. */
export interface AttachOptions {
  /** Sent as `X-Mock-Control-Token` when the provider runs with `--control-token`. */
  controlToken?: string;
  /** Where `/_mock` is served when it has its own listener (`--control-addr`). @default the url */
  controlUrl?: string;
}

/** A control-plane call answered with something other than 2xx (its problem's `detail`). */
export class MockOidcError extends Error {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The answer's body: the RFC 9457 problem, or its text when not JSON. */
  readonly body: unknown;

  /** An error for a `status` answer with `body` to `what` (method and path). */
  constructor(what: string, status: number, body: unknown) {
    const detail = (body as { detail?: unknown } | undefined)?.detail;
    super(`${what} answered ${status}${typeof detail === "string" ? `: ${detail}` : ""}`);
    this.name = "MockOidcError";
    this.status = status;
    this.body = body;
  }
}

/** Flags the kit refuses twice, given only when `args` does not. */
function withDefaults(args: readonly string[]): string[] {
  const given = (flag: string) => args.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
  return [
    ...(given("addr") ? [] : ["--addr", "127.0.0.1:0"]),
    ...(given("metrics-addr") ? [] : ["--metrics-addr", ""]),
    ...(given("log-level") ? [] : ["--log-level", "error"]),
    ...args,
  ];
}

/**
 * A running mock-oidc, started in this process ({@linkcode MockOidc.start}) or reached over HTTP
 * ({@linkcode MockOidc.attach}). Disposing it (`await using`, {@linkcode MockOidc.close}) stops the
 * provider it started; an attached one is left running.
 */
export class MockOidc implements AsyncDisposable {
  /** Base URL of the protocol endpoints, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Base URL of `/_mock` (the same as {@linkcode url} unless it has its own listener). */
  readonly controlUrl: string;
  readonly #headers: Record<string, string>;
  readonly #server: StartedServer | undefined;

  private constructor(
    url: string,
    controlUrl: string,
    controlToken: string | undefined,
    server: StartedServer | undefined,
  ) {
    this.url = url.replace(/\/+$/, "");
    this.controlUrl = controlUrl.replace(/\/+$/, "");
    this.#headers = controlToken ? { "x-mock-control-token": controlToken } : {};
    this.#server = server;
  }

  /**
   * Starts mock-oidc in this process on a free loopback port (no OS signal handlers; the
   * process's environment is not read: the configuration is `options.config`). Needs
   * `--allow-net` and `--allow-read` (its signing workers).
   *
   * @throws {SettingsError} when `options` hold a setting or configuration mock-oidc refuses.
   */
  static async start(options: StartOptions = {}): Promise<MockOidc> {
    const [{ serve }, { SETTINGS }] = await Promise.all([
      import("./serve.ts"),
      import("./settings.ts"),
    ]);
    const json = JSON.stringify(options.config ?? {});
    const env = (name: string) => name === "JSON_CONFIG" ? json : undefined;
    const { values } = SETTINGS.resolve({
      args: withDefaults(options.args ?? []),
      env: () => undefined,
    });
    const server = await serve(values, { env, handleSignals: false });
    const api = server.urls.api.replace(/:\/\/(0\.0\.0\.0|\[::\]):/, "://localhost:");
    const control = server.urls.control ?? api;
    return new MockOidc(api, control, values.control_token || undefined, server);
  }

  /**
   * A handle on a mock-oidc already running at `url` (its API listener); nothing is checked until
   * the first call.
   */
  static attach(url: string, options: AttachOptions = {}): MockOidc {
    return new MockOidc(url, options.controlUrl ?? url, options.controlToken, undefined);
  }

  /** The issuer URL of `issuer` (each segment percent-encoded). */
  issuerUrl(issuer = "default"): string {
    return `${this.url}/${issuer.split("/").map(encodeURIComponent).join("/")}`;
  }

  /** The OpenID discovery document's URL of `issuer`. */
  discoveryUrl(issuer = "default"): string {
    return `${this.issuerUrl(issuer)}/.well-known/openid-configuration`;
  }

  /** Mints a token through the token factory (`POST /_mock/mint`). */
  mint(request: MintRequest): Promise<MintedToken> {
    return this.#call("POST", "/_mock/mint", request);
  }

  /** Queues a one-shot scenario for the next token of its issuer (`POST /_mock/scenarios`). */
  enqueueScenario(scenario: Scenario): Promise<{ scenarioId: string; queueDepth: number }> {
    return this.#call("POST", "/_mock/scenarios", scenario);
  }

  /** Makes the next `count` matching calls fail (`POST /_mock/faults`). */
  injectFault(
    fault: FaultRequest,
  ): Promise<{ faultId: string; remaining: number; queued: number }> {
    return this.#call("POST", "/_mock/faults", fault);
  }

  /** The queued faults, oldest first (`GET /_mock/faults`). */
  async faults(): Promise<Fault[]> {
    return (await this.#call<{ faults: Fault[] }>("GET", "/_mock/faults")).faults;
  }

  /** Drops every queued fault (`DELETE /_mock/faults`). */
  async clearFaults(): Promise<void> {
    await this.#call("DELETE", "/_mock/faults");
  }

  /** The keys of `issuer`, the active first (`GET /_mock/keys`). */
  async keys(issuer = "default"): Promise<KeyInfo[]> {
    const query = `?issuer=${encodeURIComponent(issuer)}`;
    return (await this.#call<{ keys: KeyInfo[] }>("GET", `/_mock/keys${query}`)).keys;
  }

  /** Adds a key to an issuer, active at once with `activate` (`POST /_mock/keys`). */
  addKey(
    key: { issuer: string; kid?: string; algorithm?: Algorithm; activate?: boolean },
  ): Promise<KeyInfo> {
    return this.#call("POST", "/_mock/keys", key);
  }

  /** Makes a key of the issuer the one that signs (`POST /_mock/keys/activate`). */
  activateKey(issuer: string, kid: string): Promise<KeyInfo> {
    return this.#call("POST", "/_mock/keys/activate", { issuer, kid });
  }

  /**
   * Retires a key: it stays in the JWKS for `graceSeconds` of the process clock
   * (`POST /_mock/keys/retire`).
   */
  retireKey(issuer: string, kid: string, graceSeconds: number): Promise<KeyInfo> {
    return this.#call("POST", "/_mock/keys/retire", { issuer, kid, graceSeconds });
  }

  /**
   * Rotates the signing key of an issuer: a new key (`kid`, `algorithm` when given) becomes
   * active and the one active before is retired with `graceSeconds` (default 0: out of the JWKS
   * at once). Resolves to the new key and the retired one.
   */
  async rotateKey(
    issuer = "default",
    options: { kid?: string; algorithm?: Algorithm; graceSeconds?: number } = {},
  ): Promise<{ active: KeyInfo; retired: KeyInfo }> {
    const before = (await this.keys(issuer)).find((k) => k.status === "active");
    if (!before) throw new MockOidcError(`GET /_mock/keys?issuer=${issuer}`, 200, "no active key");
    const active = await this.addKey({
      issuer,
      kid: options.kid,
      algorithm: options.algorithm,
      activate: true,
    });
    const retired = await this.retireKey(issuer, before.kid, options.graceSeconds ?? 0);
    return { active, retired };
  }

  /**
   * Takes the oldest captured request that matches, waiting up to `timeoutMs` (default 1000)
   * for one (`POST /_mock/requests/take`); `undefined` when none came.
   */
  async takeRequest(
    filter: { endpoint?: CaptureEndpoint; issuer?: string; timeoutMs?: number } = {},
  ): Promise<CapturedRequest | undefined> {
    const res = await this.#fetch("POST", "/_mock/requests/take", filter);
    if (res.status === 404) {
      await res.body?.cancel();
      return undefined;
    }
    return await this.#answer(res, "POST /_mock/requests/take");
  }

  /** The captured requests, oldest first, without taking them (`GET /_mock/requests`). */
  async requests(filter: { endpoint?: CaptureEndpoint; issuer?: string } = {}): Promise<
    CapturedRequest[]
  > {
    const query = new URLSearchParams(filter as Record<string, string>).toString();
    const path = `/_mock/requests${query ? `?${query}` : ""}`;
    return (await this.#call<{ requests: CapturedRequest[] }>("GET", path)).requests;
  }

  /** The process clock (`GET /_mock/clock`). */
  clock(): Promise<ClockState> {
    return this.#call("GET", "/_mock/clock");
  }

  /**
   * Sets the process clock (`PUT /_mock/clock`): frozen at `instant` (a `Date` or ISO 8601), or
   * running again with `undefined`.
   */
  setClock(instant: Date | string | undefined): Promise<ClockState> {
    const body = instant === undefined
      ? { frozen: false }
      : { frozen: true, instant: new Date(instant).toISOString() };
    return this.#call("PUT", "/_mock/clock", body);
  }

  /** Freezes the clock and moves it forward by a Go duration such as `"1h30m"`. */
  advanceClock(duration: string): Promise<ClockState> {
    return this.#call("POST", "/_mock/clock/advance", { duration });
  }

  /**
   * Empties the scenario queue, the capture log and the faults, unfreezes the clock and drops the
   * control plane's issuer settings (`POST /_mock/reset`; keys and registrations stay).
   */
  async reset(): Promise<void> {
    await this.#call("POST", "/_mock/reset");
  }

  /** Stops the provider this handle started (waits for its shutdown); nothing when attached. */
  async close(): Promise<void> {
    await this.#server?.shutdown();
  }

  /** {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #fetch(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.controlUrl}${path}`, {
      method,
      headers: body === undefined
        ? this.#headers
        : { ...this.#headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return await this.#answer<T>(await this.#fetch(method, path, body), `${method} ${path}`);
  }

  async #answer<T>(res: Response, what: string): Promise<T> {
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch { /* not JSON: the text */ }
    if (!res.ok) throw new MockOidcError(what, res.status, parsed);
    return parsed as T;
  }
}
