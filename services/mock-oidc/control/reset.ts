/**
 * POST /_mock/reset: flushes the scenario queue and the request log (ending waiting takes) and
 * unfreezes the clock, drops the issuer settings of `/_mock/issuers` (the configured ones apply
 * again) and the queued faults and the DPoP nonce challenges. Signing keys stay, so JWKS already fetched by clients stays valid.
 * @module
 */
import { type ControlDeps, controlJson } from "./control_deps.ts";
import { readJsonBody, validateObject } from "./validation.ts";

export async function resetMock(req: Request, deps: ControlDeps): Promise<Response> {
  // The body is documented as empty; `{}` is accepted, anything else violates the schema.
  validateObject(await readJsonBody(req), {});
  deps.scenarios.clear();
  deps.requests.clear();
  deps.clock.unfreeze();
  deps.issuers?.clear();
  deps.faults?.clear();
  deps.dpopChallenges?.clear();
  return controlJson({ reset: true });
}
