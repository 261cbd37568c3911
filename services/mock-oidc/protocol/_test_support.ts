/**
 * In-process harness for protocol tests: a core with bundled keys and a `call` helper that
 * sends a `new Request` straight to the handler (no socket).
 *
 * @module
 */

import { type Core, type CoreOptions, createCore } from "../provider_state.ts";
import { DEFAULT_CONFIG, type OidcConfig } from "../config/json_config.ts";
import type { CallbackSource, TokenCallback } from "../tokens/callback.ts";
import { createRouter, localInfo, withErrors } from "@svc/shared/http";
import type { ProtocolDeps } from "./deps.ts";
import { protocolMethodNotAllowed, protocolNotFound } from "./issuer_route.ts";
import { routeTable } from "../routes.ts";

/**
 * The protocol rows of the route table on their own (`/{issuer}/…`), as one handler behind the
 * error boundary, as the app serves them (in-process tests).
 */
export function createProtocolHandler(deps: ProtocolDeps): (req: Request) => Promise<Response> {
  const routes = routeTable({ protocol: deps, document: () => ({}) })
    .filter((route) => String(route.pattern).includes(":issuer"));
  const router = createRouter(routes, {
    notFound: protocolNotFound(),
    methodNotAllowed: protocolMethodNotAllowed,
  });
  const handler = withErrors(router.handler);
  return async (req) => await handler(req, localInfo());
}

/** Base URL the harness pretends to serve. */
export const BASE = "http://localhost:8080";

/** A handler plus helpers. */
export interface Harness {
  core: Core;
  call(path: string, init?: RequestInit): Promise<Response>;
  form(path: string, body: Record<string, string>, headers?: HeadersInit): Promise<Response>;
  /** Scenarios the fake queue will hand out, FIFO, with how often take() was called. */
  scenarios: TokenCallback[];
  takes: string[];
}

/** Build a harness; `config` overrides the default JSON configuration. */
export function harness(
  config: Partial<OidcConfig> = {},
  options: Pick<
    CoreOptions,
    | "now"
    | "fetch"
    | "metadataDocuments"
    | "codeRedirectUriOptional"
    | "sleep"
    | "dpopNonceIssuers"
    | "parRequiredIssuers"
  > = {},
) {
  const scenarios: TokenCallback[] = [];
  const takes: string[] = [];
  const callbacks: CallbackSource = {
    take(issuerId) {
      takes.push(issuerId);
      if (scenarios[0]?.issuer !== issuerId) return undefined;
      return scenarios.shift();
    },
  };
  const core = createCore({ ...DEFAULT_CONFIG, ...config }, { ...options, callbacks });
  const handler = createProtocolHandler(core.protocol);
  const call = (path: string, init?: RequestInit) => handler(new Request(BASE + path, init));
  return {
    core,
    call,
    scenarios,
    takes,
    form: (path: string, body: Record<string, string>, headers: HeadersInit = {}) =>
      call(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(body),
      }),
  } satisfies Harness;
}

/** Decode a JWT payload without verification (tests only). */
export function claimsOf(token: string): Record<string, unknown> {
  const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part + "=".repeat((4 - part.length % 4) % 4)));
}

/** Decode a JWT header (tests only). */
export function headerOf(token: string): Record<string, unknown> {
  const part = token.split(".")[0].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part + "=".repeat((4 - part.length % 4) % 4)));
}

/** Basic credentials header value. */
export function basic(id: string, secret = "secret"): string {
  return `Basic ${btoa(`${id}:${secret}`)}`;
}
