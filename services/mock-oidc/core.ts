/**
 * Builds the process-wide core from the resolved configuration: ONE clock, ONE key store,
 * ONE token factory, protocol state. The control plane shares these objects.
 *
 * @module
 */

import { type Clock, createClock } from "./clock.ts";
import type { OidcConfig } from "./config/json_config.ts";
import bundled from "./keys/bundled_keys.json" with { type: "json" };
import { createKeyStore, type KeyStore } from "./keys/key_store.ts";
import { openOpenSsl } from "./keys/openssl.ts";
import type { ProtocolDeps } from "./protocol/deps.ts";
import { createProtocolState } from "./protocol/state.ts";
import { type CallbackSource, NO_SCENARIOS } from "./tokens/callback.ts";
import { createTokenFactory, type TokenFactory } from "./tokens/token_factory.ts";

/** The shared core objects. */
export interface Core {
  clock: Clock;
  keys: KeyStore;
  tokens: TokenFactory;
  protocol: ProtocolDeps;
  /** Which signer the key store uses (see `keys/openssl.ts`). */
  signer: "openssl-thread" | "openssl" | "webcrypto";
}

/** Options of {@linkcode createCore}. */
export interface CoreOptions {
  /** Scenario queue; none when absent. */
  callbacks?: CallbackSource;
  /** Wall clock source (tests). */
  now?: () => number;
  /** Use OpenSSL over FFI when available. @default true */
  openssl?: boolean;
  /** Environment lookup (for `MOCK_OIDC_SIGNER`). */
  env?: (name: string) => string | undefined;
}

/** Create the core of one mock-oidc process. */
export function createCore(config: OidcConfig, options: CoreOptions = {}): Core {
  const clock = createClock({ now: options.now, frozenAt: config.systemTime });
  const openssl = options.openssl === false ? undefined : openOpenSsl({ env: options.env });
  const initialKeys = config.bundledKeys
    ? bundled.keys.map((jwk) => ({ jwk, alg: "RS256" as const }))
    : config.initialKeys;
  const keys = createKeyStore({ algorithm: config.algorithm, initialKeys, openssl });
  const tokens = createTokenFactory({ keys, clock });
  const protocol: ProtocolDeps = {
    settings: {
      interactiveLogin: config.interactiveLogin,
      rotateRefreshToken: config.rotateRefreshToken,
      loginPage: config.loginPage,
      tokenCallbacks: config.tokenCallbacks,
    },
    clock,
    keys,
    tokens,
    callbacks: options.callbacks ?? NO_SCENARIOS,
    state: createProtocolState(),
  };
  return {
    clock,
    keys,
    tokens,
    protocol,
    signer: !openssl ? "webcrypto" : openssl.offThread ? "openssl-thread" : "openssl",
  };
}
