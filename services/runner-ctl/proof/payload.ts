/**
 * The version 1 job-proof payload: built by {@linkcode buildPayload} and checked strictly by
 * {@linkcode validatePayload} (every key required, no others, ids as non-negative JSON integers,
 * times RFC 3339 UTC, `repository` as `owner/name`).
 *
 * @module
 */
import { ProofError } from "./errors.ts";

/** `payloadType` of version 1 proofs (exact). */
export const PAYLOAD_TYPE_V1 = "application/vnd.runner-ctl.job-proof.v1+json";

/** The version 1 payload. Ids are JSON numbers; times are RFC 3339 UTC strings. */
export interface JobProofPayload {
  version: 1;
  "host_id": string;
  "scale_set": { id: number; name: string };
  runner: { id: number; name: string };
  instance: { project: string; name: string };
  job: {
    "runner_request_id": number;
    repository: string;
    "workflow_ref": string;
    "workflow_run_id": number;
    "job_display_name": string;
    "event_name": string;
  };
  times: { "queued_at": string; "assigned_at": string; "signed_at": string };
}

type Kind = "id" | "text" | "name" | "repo" | "time";
type Shape = { [key: string]: Kind | Shape };

const SHAPE: Shape = {
  version: "id",
  "host_id": "name",
  "scale_set": { id: "id", name: "name" },
  runner: { id: "id", name: "name" },
  instance: { project: "name", name: "name" },
  job: {
    "runner_request_id": "id",
    repository: "repo",
    "workflow_ref": "text",
    "workflow_run_id": "id",
    "job_display_name": "text",
    "event_name": "text",
  },
  times: { "queued_at": "time", "assigned_at": "time", "signed_at": "time" },
};

const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;
const REPO_RE = /^[^/\s]+\/[^/\s]+$/;

/**
 * Returns the payload with every key in the contract's order (docs/runner-ctl.md#job-proofs), after
 * validating it.
 *
 * @throws {ProofError} `bad_payload` when a field is missing, extra or of the wrong form.
 */
export function buildPayload(fields: Omit<JobProofPayload, "version">): JobProofPayload {
  const payload: JobProofPayload = {
    version: 1,
    "host_id": fields.host_id,
    "scale_set": { id: fields.scale_set.id, name: fields.scale_set.name },
    runner: { id: fields.runner.id, name: fields.runner.name },
    instance: { project: fields.instance.project, name: fields.instance.name },
    job: {
      "runner_request_id": fields.job.runner_request_id,
      repository: fields.job.repository,
      "workflow_ref": fields.job.workflow_ref,
      "workflow_run_id": fields.job.workflow_run_id,
      "job_display_name": fields.job.job_display_name,
      "event_name": fields.job.event_name,
    },
    times: {
      "queued_at": fields.times.queued_at,
      "assigned_at": fields.times.assigned_at,
      "signed_at": fields.times.signed_at,
    },
  };
  return validatePayload(payload);
}

/**
 * Checks a parsed value against the version 1 payload shape.
 *
 * @throws {ProofError} `bad_payload` naming the field (never its value).
 */
export function validatePayload(value: unknown): JobProofPayload {
  checkObject(value, SHAPE, "payload");
  if ((value as { version: unknown }).version !== 1) fail("version");
  return value as JobProofPayload;
}

function checkObject(value: unknown, shape: Shape, path: string): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(path);
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!Object.hasOwn(shape, key)) {
      throw new ProofError("bad_payload", `Cannot accept payload: unknown field ${path}.${key}`);
    }
  }
  for (const [key, kind] of Object.entries(shape)) {
    const where = `${path}.${key}`;
    if (!Object.hasOwn(obj, key)) {
      throw new ProofError("bad_payload", `Cannot accept payload: missing field ${where}`);
    }
    if (typeof kind === "object") checkObject(obj[key], kind, where);
    else if (!checkScalar(obj[key], kind)) fail(where);
  }
}

function checkScalar(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case "id":
      return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
    case "text":
      return typeof v === "string";
    case "name":
      return typeof v === "string" && v !== "";
    case "repo":
      return typeof v === "string" && REPO_RE.test(v);
    case "time":
      return typeof v === "string" && isRfc3339Utc(v);
  }
}

/** True for `YYYY-MM-DDTHH:MM:SS[.fraction]Z` naming a real instant. */
export function isRfc3339Utc(text: string): boolean {
  const m = TIME_RE.exec(text);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // not Date.UTC, which maps years 0..99 to 1900..1999
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d && h < 24 && mi < 60 && s < 60;
}

function fail(where: string): never {
  throw new ProofError("bad_payload", `Cannot accept payload: invalid field ${where}`);
}
