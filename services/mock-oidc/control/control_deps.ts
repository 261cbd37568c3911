/**
 * What the control plane needs from the rest of the service, written as the protocol side's
 * interfaces (clock, token factory, issuer URL) so either side can be tested alone.
 * @module
 */
import type { RequestLog } from "./request_log.ts";
import type { ScenarioQueue } from "./scenario_queue.ts";
import type { Clock } from "../clock.ts";
import type { ClientRegistry } from "../protocol/client_registry.ts";
import type { Issuers } from "../protocol/issuers.ts";
import type { NonceChallenges } from "../protocol/dpop_challenges.ts";
import type { FaultQueue } from "../protocol/fault_queue.ts";
import type { RotatingKeyStore } from "../keys/key_ring.ts";
import type { TokenFactory } from "../tokens/token_factory.ts";

/** The global mock clock (`clock.ts`). */
export type ControlClock = Clock;
/** The token factory shared with the token endpoint, so minted tokens match granted ones. */
export type TokenIssuer = TokenFactory;

/** What the `/_mock` rows need. */
export interface ControlDeps {
  clock: ControlClock;
  tokens: TokenIssuer;
  scenarios: ScenarioQueue;
  requests: RequestLog;
  /** Dynamically registered clients (`/_mock/clients`). @default an empty registry */
  clients?: ClientRegistry;
  /** The issuer URL for a request: `--public-base-url`, else Host / X-Forwarded-* (`issuers.ts`). */
  issuerUrlOf: (req: Request, issuerId: string) => string;
  /** Per-issuer settings (`/_mock/issuers`); without them that route has nothing to set. */
  issuers?: Issuers;
  /** The signing keys (`/_mock/keys`); without them that route has no keys to change. */
  keys?: RotatingKeyStore;
  /** Nonce challenges (`/_mock/dpop/nonce-challenge`), shared with the token endpoint. */
  dpopChallenges?: NonceChallenges;
  /** Failures on demand (`/_mock/faults`); without a queue that route has nowhere to put them. */
  faults?: FaultQueue;
  /**
   * Base URL of the API listener when `/_mock` has its own listener: minted tokens then name the
   * API issuer URL (unless X-Forwarded-* says otherwise), so userinfo and introspect accept them.
   */
  apiOrigin?: () => string | undefined;
  /** Required in `X-Mock-Control-Token` when set. */
  controlToken?: string;
  /** Called after each mint, e.g. to count tokens issued per grant. */
  onMint?: (kind: string) => void;
}

/** Answers one `/_mock` row (control_handlers.ts has them all). */
export type ControlHandler = (req: Request, deps: ControlDeps) => Response | Promise<Response>;

/** A JSON response carrying the control plane's testing-only marker. */
export function controlJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-mock-oidc": "testing-only" },
  });
}
