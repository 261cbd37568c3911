/**
 * What the control plane needs from the rest of the service, written as the protocol side's
 * interfaces (clock, token factory, issuer URL) so either side can be tested alone.
 * @module
 */
import type { RequestLog } from "./request_log.ts";
import type { Scenario, ScenarioQueue } from "./scenario_queue.ts";

/** The global mock clock (see `clock.ts`). */
export interface ControlClock {
  now(): number;
  state(): { frozen: boolean; now: Date };
  freeze(atMs: number): void;
  unfreeze(): void;
  advance(ms: number): void;
}

/** The subset of `TokenRequest` the mint route fills in. */
export interface MintTokenRequest {
  issuerId: string;
  issuerUrl: string;
  kind: "access_token" | "id_token";
  subject?: string;
  audience?: string[] | null;
  scope?: string[];
  clientId: string;
  claims?: Record<string, unknown>;
  typ?: string;
  expirySeconds?: number;
  callback?: Scenario;
}

export interface MintedToken {
  token: string;
  kid: string;
  algorithm: string;
  issuer: string;
  claims: Record<string, unknown>;
  expiresAt: Date;
}

/** The token factory shared with the token endpoint, so minted tokens match granted ones. */
export interface TokenIssuer {
  issue(req: MintTokenRequest): Promise<MintedToken>;
}

export interface ControlDeps {
  clock: ControlClock;
  tokens: TokenIssuer;
  scenarios: ScenarioQueue;
  requests: RequestLog;
  /** The per-request issuer URL from Host / X-Forwarded-* (`protocol/router.ts`). */
  issuerUrlOf: (req: Request, issuerId: string) => string;
  /** Required in `X-Mock-Control-Token` when set. */
  controlToken?: string;
  /** Called after each mint, e.g. to count tokens issued per grant. */
  onMint?: (kind: string) => void;
}

/** A JSON response carrying the control plane's testing-only marker. */
export function controlJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-mock-oidc": "testing-only" },
  });
}
