/**
 * `/_mock/keys`: keys that change (`keys/key_ring.ts`). List an issuer's keys, add one (optionally
 * active at once), make one the signing key, retire one for a grace period.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import { type Algorithm, ALGORITHMS } from "../keys/algorithms.ts";
import {
  KeyRingError,
  MAX_GRACE_SECONDS,
  MAX_KID_LENGTH,
  type RingKey,
  type RotatingKeyStore,
} from "../keys/key_ring.ts";
import { controlJson } from "./control_deps.ts";
import {
  type FieldRule,
  issuerProblem,
  readJsonBody,
  validateObject,
  validationError,
} from "./validation.ts";

// deno-lint-ignore no-control-regex -- the point is to find control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const kidProblem = (v: unknown) => {
  const kid = v as string;
  if (kid === "") return "must not be empty";
  if (kid.length > MAX_KID_LENGTH) return `must be at most ${MAX_KID_LENGTH} characters`;
  return CONTROL.test(kid) ? "must not contain control characters" : undefined;
};

const ISSUER: FieldRule = { type: "string", required: true, check: issuerProblem };
const KID: FieldRule = { type: "string", required: true, check: kidProblem };

const ADD_SCHEMA: Record<string, FieldRule> = {
  issuer: ISSUER,
  kid: { ...KID, required: false },
  algorithm: { type: "string", enum: ALGORITHMS },
  activate: { type: "boolean" },
};
const ACTIVATE_SCHEMA: Record<string, FieldRule> = { issuer: ISSUER, kid: KID };
const RETIRE_SCHEMA: Record<string, FieldRule> = {
  issuer: ISSUER,
  kid: KID,
  graceSeconds: {
    type: "integer",
    required: true,
    check: (v) =>
      (v as number) >= 0 && (v as number) <= MAX_GRACE_SECONDS
        ? undefined
        : `must be 0 to ${MAX_GRACE_SECONDS}`,
  },
};

function entryOf(k: RingKey) {
  return {
    kid: k.key.kid,
    algorithm: k.key.alg,
    status: k.status,
    ...(k.retiredUntil !== undefined
      ? { retiredUntil: new Date(k.retiredUntil).toISOString() }
      : {}),
  };
}

async function ringCall(call: () => Promise<RingKey>): Promise<Response> {
  try {
    return controlJson(entryOf(await call()));
  } catch (err) {
    if (err instanceof KeyRingError) {
      throw new HttpError(
        err.status,
        err.status === 404 ? "no_such_key" : "key_conflict",
        err.message,
      );
    }
    throw err;
  }
}

/** GET /_mock/keys?issuer= → `{issuer, keys: [{kid, algorithm, status, retiredUntil?}]}`. */
export async function listKeys(req: Request, keys: RotatingKeyStore): Promise<Response> {
  const issuer = new URL(req.url).searchParams.get("issuer");
  const problem = issuer === null ? "required query parameter is missing" : issuerProblem(issuer);
  if (problem) {
    throw validationError([{ location: "query.issuer", message: problem, value: issuer }]);
  }
  return controlJson({ issuer, keys: (await keys.listKeys(issuer!)).map(entryOf) });
}

/** POST /_mock/keys → the added key. */
export async function addKey(req: Request, keys: RotatingKeyStore): Promise<Response> {
  const body = validateObject<
    { issuer: string; kid?: string; algorithm?: Algorithm; activate?: boolean }
  >(
    await readJsonBody(req),
    ADD_SCHEMA,
  );
  return await ringCall(() =>
    keys.addKey(body.issuer, { kid: body.kid, alg: body.algorithm, activate: body.activate })
  );
}

/** POST /_mock/keys/activate → the now active key. */
export async function activateKey(req: Request, keys: RotatingKeyStore): Promise<Response> {
  const body = validateObject<{ issuer: string; kid: string }>(
    await readJsonBody(req),
    ACTIVATE_SCHEMA,
  );
  return await ringCall(() => keys.activateKey(body.issuer, body.kid));
}

/** POST /_mock/keys/retire → the retired key with the end of its grace. */
export async function retireKey(req: Request, keys: RotatingKeyStore): Promise<Response> {
  const body = validateObject<{ issuer: string; kid: string; graceSeconds: number }>(
    await readJsonBody(req),
    RETIRE_SCHEMA,
  );
  return await ringCall(() => keys.retireKey(body.issuer, body.kid, body.graceSeconds));
}
