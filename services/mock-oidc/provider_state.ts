/**
 * The provider's state: what one mock-oidc process holds for its whole life, built once from the
 * resolved configuration and shared by the protocol side (`/{issuer}/…`) and the control plane
 * (`/_mock`):
 *
 * - ONE clock (`clock.ts`): wall time, or frozen/advanced through `/_mock/clock`;
 * - ONE key store (`keys/`): a signing key per issuer, `kid` = issuer id, never dropped by reset;
 * - ONE token factory (`tokens/`): every token, granted or minted, comes from it;
 * - the protocol state (`protocol/state.ts`): authorization codes, refresh tokens, device
 *   grants and revoked token ids, in memory and bounded.
 *
 * The per-test state the control plane resets (scenario queue, captured requests) is not here:
 * `app.ts` creates it (`createAppState`), before this core, which reads the queue.
 *
 * @module
 */

import { type Clock, createClock } from "./clock.ts";
import type { OidcConfig } from "./config/json_config.ts";
import bundled from "./keys/bundled_keys.json" with { type: "json" };
// The bundled keys' certificates, made ahead (a key's is the same every time): the first JWKS
// answer does not make one (keys/key_material_test.ts checks them against the keys).
import bundledCerts from "./keys/bundled_certs.json" with { type: "json" };
import { createKeyStore } from "./keys/key_store.ts";
import { createKeyRing, type RotatingKeyStore } from "./keys/key_ring.ts";
import type { Signer, SignerName } from "./keys/signer.ts";
import type { ProtocolDeps } from "./protocol/deps.ts";
import { createProtocolState } from "./protocol/state.ts";
import { Issuers } from "./protocol/issuers.ts";
import { FaultQueue } from "./protocol/fault_queue.ts";
import type { Sleep } from "./protocol/fault_response.ts";
import { MetadataDocuments } from "./protocol/metadata_document.ts";
import type { OutboundPolicy } from "./outbound/fetch_outbound.ts";
import { type CallbackSource, NO_SCENARIOS } from "./tokens/callback.ts";
import type { TokenFactory } from "./tokens/token_factory.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// The token factory (JWT encoding, claim mappings) loads with the first token, not at start: a
// start's first answers (discovery, JWKS) issue none.
const tokenFactory = lazyModuleAt<typeof import("./tokens/token_factory.ts")>(
  import.meta.resolve("./tokens/token_factory.ts"),
);

/** The shared core objects. */
export interface Core {
  clock: Clock;
  keys: RotatingKeyStore;
  tokens: TokenFactory;
  protocol: ProtocolDeps;
  /** Which signer the key store uses (see `keys/signer.ts`). */
  signer: SignerName;
}

/** Options of {@linkcode createCore}. */
export interface CoreOptions {
  /** Scenario queue; none when absent. */
  callbacks?: CallbackSource;
  /** Wall clock source (tests). */
  now?: () => number;
  /** Signing backend (`--signer`); WebCrypto on the event loop when absent (unit tests). */
  signer?: Signer;
  /** Which client ID metadata documents may be fetched. @default https to public hosts, loopback */
  metadataDocuments?: OutboundPolicy;
  /** `--code-redirect-uri-optional`. @default false */
  codeRedirectUriOptional?: boolean;
  /** `--dpop-nonce-issuers`. @default none */
  dpopNonceIssuers?: readonly string[];
  /** `--par-required-issuers`. @default none */
  parRequiredIssuers?: readonly string[];
  /** Fetch of metadata documents (tests). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** `--public-base-url`: every issuer URL starts with it. @default derived from each request */
  publicBaseUrl?: string;
  /** How `delay` faults wait (tests). @default setTimeout */
  sleep?: Sleep;
}

/** Create the core of one mock-oidc process. */
export function createCore(config: OidcConfig, options: CoreOptions = {}): Core {
  const clock = createClock({ now: options.now, frozenAt: config.systemTime });
  const initialKeys = config.bundledKeys
    ? bundled.keys.map((jwk, i) => ({
      jwk,
      alg: "RS256" as const,
      certificate: bundledCerts.certificates[i],
    }))
    : config.initialKeys;
  const keys = createKeyRing(
    createKeyStore({ algorithm: config.algorithm, initialKeys, signer: options.signer }),
    { clock, algorithm: config.algorithm, signer: options.signer },
  );
  const tokens = lazyTokenFactory({ keys, clock });
  const protocol: ProtocolDeps = {
    settings: {
      interactiveLogin: config.interactiveLogin,
      rotateRefreshToken: config.rotateRefreshToken,
      loginPagePath: config.loginPagePath || undefined,
      tokenCallbacks: config.tokenCallbacks,
      loginPresets: config.loginPresets,
      codeRedirectUriOptional: options.codeRedirectUriOptional,
      dpopNonceIssuers: options.dpopNonceIssuers,
      parRequiredIssuers: options.parRequiredIssuers,
    },
    clock,
    keys,
    tokens,
    callbacks: options.callbacks ?? NO_SCENARIOS,
    state: createProtocolState(),
    issuers: new Issuers({ configured: config.issuers, publicBaseUrl: options.publicBaseUrl }),
    faults: new FaultQueue(),
    sleep: options.sleep,
    metadataDocuments: new MetadataDocuments({
      clock,
      fetch: options.fetch,
      ...options.metadataDocuments,
    }),
  };
  return {
    clock,
    keys,
    tokens,
    protocol,
    signer: options.signer?.name ?? "webcrypto",
  };
}

/** A {@linkcode TokenFactory} whose module loads on the first token (and again after a failure). */
function lazyTokenFactory(
  options: Parameters<typeof import("./tokens/token_factory.ts").createTokenFactory>[0],
): TokenFactory {
  let factory: TokenFactory | undefined;
  return {
    async issue(req) {
      factory ??= (await tokenFactory()).createTokenFactory(options);
      return await factory.issue(req);
    },
  };
}
