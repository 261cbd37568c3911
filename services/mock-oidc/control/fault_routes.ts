/**
 * `/_mock/faults`: failures on demand (`protocol/fault_queue.ts`). POST queues a fault for the
 * next `count` matching protocol calls, GET lists the queue, DELETE (and reset) empties it.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import {
  type Fault,
  FAULT_ENDPOINTS,
  FAULT_KINDS,
  type FaultQueue,
  type FaultRequest,
  MAX_FAULT_COUNT,
  MAX_FAULT_DELAY_MS,
  MAX_FAULTS,
} from "../protocol/fault_queue.ts";
import { controlJson } from "./control_deps.ts";
import {
  type FieldRule,
  issuerProblem,
  readJsonBody,
  validateObject,
  validationError,
} from "./validation.ts";

const between = (min: number, max: number) => (v: unknown) =>
  (v as number) >= min && (v as number) <= max ? undefined : `must be ${min} to ${max}`;

const FAULT_SCHEMA: Record<string, FieldRule> = {
  issuer: { type: "string", check: issuerProblem },
  endpoint: { type: "string", required: true, enum: FAULT_ENDPOINTS },
  grantType: { type: "string" },
  clientId: { type: "string" },
  count: { type: "integer", check: between(1, MAX_FAULT_COUNT) },
  kind: { type: "string", required: true, enum: FAULT_KINDS },
  error: {
    type: "string",
    check: (v) =>
      /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/.test(v as string)
        ? undefined
        : "must be RFC 6749 error characters",
  },
  errorDescription: { type: "string" },
  status: { type: "integer", check: between(200, 599) },
  body: { type: "string" },
  contentType: { type: "string" },
  delayMs: { type: "integer", check: between(0, MAX_FAULT_DELAY_MS) },
  malformed: { type: "string", enum: ["bad_json", "jwks_without_keys"] },
};

/** Which fields each kind needs, and which it takes. */
const KIND_FIELDS: Record<Fault["kind"], { needs: string[]; takes: string[] }> = {
  "oauth_error": { needs: ["error"], takes: ["error", "errorDescription", "status"] },
  http: { needs: ["status"], takes: ["status", "body", "contentType"] },
  delay: { needs: ["delayMs"], takes: ["delayMs"] },
  close: { needs: [], takes: [] },
  malformed: { needs: ["malformed"], takes: ["malformed"] },
};
const RESPONSE_FIELDS = [
  "error",
  "errorDescription",
  "status",
  "body",
  "contentType",
  "delayMs",
  "malformed",
];

/** POST /_mock/faults → `{faultId, remaining, queued}`. */
export async function injectFault(req: Request, faults: FaultQueue): Promise<Response> {
  const body = validateObject<FaultRequest>(await readJsonBody(req), FAULT_SCHEMA);
  const { needs, takes } = KIND_FIELDS[body.kind];
  const errors = [
    ...needs.filter((f) => body[f as keyof FaultRequest] === undefined).map((f) => ({
      location: `body.${f}`,
      message: `required for kind ${body.kind}`,
    })),
    ...RESPONSE_FIELDS.filter((f) =>
      !takes.includes(f) && body[f as keyof FaultRequest] !== undefined
    )
      .map((f) => ({ location: `body.${f}`, message: `not used by kind ${body.kind}` })),
  ];
  if (body.kind === "oauth_error" && body.status !== undefined && body.status < 400) {
    errors.push({ location: "body.status", message: "an OAuth error's status is 400 to 599" });
  }
  if (body.grantType !== undefined && body.endpoint !== "token") {
    errors.push({ location: "body.grantType", message: "matches the token endpoint only" });
  }
  if (errors.length > 0) throw validationError(errors);
  const { count, ...rest } = body;
  const fault: Fault = { ...rest, faultId: crypto.randomUUID(), remaining: count ?? 1 };
  if (!faults.add(fault)) {
    throw new HttpError(
      409,
      "too_many_faults",
      `at most ${MAX_FAULTS} faults are queued; DELETE /_mock/faults or reset first`,
    );
  }
  return controlJson({ faultId: fault.faultId, remaining: fault.remaining, queued: faults.size });
}

/** GET /_mock/faults → `{count, faults}`, oldest first. */
export function listFaults(faults: FaultQueue): Response {
  const list = faults.list();
  return controlJson({ count: list.length, faults: list });
}

/** DELETE /_mock/faults → `{count: 0}`. */
export function clearFaults(faults: FaultQueue): Response {
  faults.clear();
  return controlJson({ count: 0 });
}
