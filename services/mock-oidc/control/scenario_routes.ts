/**
 * `/_mock/scenarios`: enqueue (POST), list (GET, non-destructive) and flush (DELETE) one-shot
 * scenarios.
 * @module
 */
import { patternProblem } from "../tokens/safe_pattern.ts";
import { controlJson } from "./control_deps.ts";
import type { Scenario, ScenarioQueue } from "./scenario_queue.ts";
import {
  claimsDepthProblem,
  type FieldRule,
  issuerProblem,
  readJsonBody,
  validateObject,
} from "./validation.ts";

const REQUEST_MAPPING: FieldRule = {
  type: "object",
  properties: {
    param: { type: "string", required: true },
    match: { type: "string", required: true, check: (v) => patternProblem(v as string) },
    typeHeader: { type: "string" },
    claims: { type: "object", check: claimsDepthProblem },
  },
};

const SCENARIO_SCHEMA: Record<string, FieldRule> = {
  issuer: { type: "string", required: true, check: issuerProblem },
  subject: { type: "string" },
  audience: { type: "array", items: { type: "string" } },
  claims: { type: "object", check: claimsDepthProblem },
  typ: { type: "string" },
  expirySeconds: { type: "number" },
  requestMappings: { type: "array", items: REQUEST_MAPPING },
};

/** POST /_mock/scenarios → `{scenarioId, queueDepth}`. */
export async function enqueueScenario(req: Request, queue: ScenarioQueue): Promise<Response> {
  const scenario = validateObject<Scenario>(await readJsonBody(req), SCENARIO_SCHEMA);
  const scenarioId = queue.enqueue(scenario);
  return controlJson({ scenarioId, queueDepth: queue.depth });
}

/** GET /_mock/scenarios → `{queueDepth, scenarios[{issuer, kind}]}`. */
export function listScenarios(queue: ScenarioQueue): Response {
  const scenarios = queue.list().map(({ scenario }) => ({
    issuer: scenario.issuer,
    kind: scenario.requestMappings?.length ? "requestMapping" : "default",
  }));
  return controlJson({ queueDepth: queue.depth, scenarios });
}

/** DELETE /_mock/scenarios → `{queueDepth: 0}`. */
export function flushScenarios(queue: ScenarioQueue): Response {
  queue.clear();
  return controlJson({ queueDepth: 0 });
}
