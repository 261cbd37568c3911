/**
 * What the protocol endpoints need from the rest of the process, and the per-request context.
 *
 * @module
 */

import { encodeBase64 } from "@svc/shared/base64";
import type { Clock } from "../clock.ts";
import type { RotatingKeyStore } from "../keys/key_ring.ts";
import type { CallbackSource, TokenCallback } from "../tokens/callback.ts";
import type { TokenFactory } from "../tokens/token_factory.ts";
import type { ProtocolState } from "./state.ts";
import type { MetadataDocuments } from "./metadata_document.ts";
import type { Issuers } from "./issuers.ts";
import type { FaultQueue } from "./fault_queue.ts";
import type { Sleep } from "./fault_response.ts";
import type { LoginPreset } from "../config/json_config.ts";

/** Protocol behaviour from the JSON configuration and the settings. */
export interface ProtocolSettings {
  /** GET /authorize renders a login page instead of auto-issuing a code. @default false */
  interactiveLogin: boolean;
  /** refresh_token grant issues a new refresh token each time. @default false */
  rotateRefreshToken: boolean;
  /**
   * `loginPagePath`: an HTML file read on every login-page request, as upstream does (edits show
   * at once; a missing file is a 404 of the login page, not a failed start), served as-is (no
   * templating) instead of the built-in login page; it must POST `username` (and optionally
   * `claims`) back to the same URL.
   */
  loginPagePath?: string;
  /**
   * `loginPresets`: users the built-in login page offers as buttons and the debugger as a choice;
   * a `login_hint` naming one signs in as it when no login page is due. @default []
   */
  loginPresets?: readonly LoginPreset[];
  /** Reads the login page file. @default Deno.readTextFile */
  readTextFile?: (path: string) => Promise<string>;
  /** Configured callbacks (`tokenCallbacks`), first entry per issuer wins. */
  tokenCallbacks: readonly TokenCallback[];
  /**
   * `--code-redirect-uri-optional`: a code may be redeemed without `redirect_uri`, as upstream
   * allows; a different one is refused either way. @default false
   */
  codeRedirectUriOptional?: boolean;
  /**
   * `--dpop-nonce-issuers`: issuer ids (`*`: all) whose DPoP proofs must carry a server nonce
   * (RFC 9449 §8, §9). @default none
   */
  dpopNonceIssuers?: readonly string[];
  /**
   * `--par-required-issuers`: issuer ids (`*`: all) whose `authorize` takes pushed requests only
   * (RFC 9126 §5, `require_pushed_authorization_requests`). @default none
   */
  parRequiredIssuers?: readonly string[];
}

/** Dependencies of {@linkcode createProtocolHandler}. */
export interface ProtocolDeps {
  settings: ProtocolSettings;
  clock: Clock;
  keys: RotatingKeyStore;
  tokens: TokenFactory;
  /** One-shot scenarios (the control plane's queue); none when absent. */
  callbacks: CallbackSource;
  state: ProtocolState;
  /** Per-issuer settings (trailing slash, discovery fields) and the issuer URL they make. */
  issuers: Issuers;
  /** Failures on demand (`/_mock/faults`); none when absent. */
  faults?: FaultQueue;
  /** How a `delay` fault waits (tests inject their own). @default setTimeout */
  sleep?: Sleep;
  /** Client ID metadata documents; URL client ids are unregistered ids when absent. */
  metadataDocuments?: MetadataDocuments;
  /** Called once per successful token response with its `grant_type` (the metrics count it). */
  onTokenIssued?: (grantType: string) => void;
  /** Opaque random strings for codes and refresh tokens. @default 32 random bytes, base64url */
  randomToken?: () => string;
  /** The debugger's cookie key (A128GCM). @default 16 random bytes per route table (process) */
  debuggerKey?: Uint8Array;
  /**
   * Sends a request the provider makes to itself (the debugger's PAR, token and userinfo calls,
   * in-process) through the captured-request log, `run` answering it; absent where nothing is
   * captured (a dedicated control listener, in-process tests), and the call is just run.
   */
  captureInProcess?: (req: Request, run: (req: Request) => Promise<Response>) => Promise<Response>;
}

/** One request inside an issuer namespace. */
export interface IssuerContext {
  req: Request;
  /** The decoded id: one or more segments joined by `/`. */
  issuerId: string;
  /** The issuer URL (`iss`): ends in `/` for a trailing-slash issuer. */
  issuerUrl: string;
  /** The issuer URL without a trailing slash: endpoint URLs are this plus `/token`, … */
  baseUrl: string;
  deps: ProtocolDeps;
  /** A token request with a verified DPoP proof: the tokens are bound to this key. */
  dpop?: {
    /** RFC 7638 thumbprint of the proof's key: `cnf.jkt`. */
    jkt: string;
    /** A public client: its refresh token is bound to the key too. */
    bindRefresh: boolean;
  };
}

/** Answers one endpoint of an issuer namespace. */
export type EndpointHandler = (ctx: IssuerContext) => Response | Promise<Response>;

/** 32 random bytes as base64url. */
function defaultRandomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return encodeBase64(bytes, { url: true });
}

/** The randomToken of `deps`, or the default. */
export function randomTokenOf(deps: ProtocolDeps): string {
  return (deps.randomToken ?? defaultRandomToken)();
}
