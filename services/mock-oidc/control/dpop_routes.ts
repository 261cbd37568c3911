/**
 * `/_mock/dpop/nonce-challenge`: POST makes the next token request with a DPoP proof to an issuer
 * (from one client, when `clientId` is given) demand a server nonce (`use_dpop_nonce` with a
 * `DPoP-Nonce` header unless its proof carries a current one), GET lists the waiting challenges,
 * DELETE (and reset) drops them. A challenge is used up by the first proof it applies to.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import { MAX_NONCE_CHALLENGES, type NonceChallenges } from "../protocol/dpop_challenges.ts";
import { controlJson } from "./control_deps.ts";
import { issuerProblem, readJsonBody, validateObject } from "./validation.ts";

const CHALLENGE_SCHEMA = {
  issuer: { type: "string", required: true, check: issuerProblem },
  clientId: {
    type: "string",
    check: (v: unknown) => (v as string) === "" ? "must not be empty" : undefined,
  },
} as const;

/** POST → `{issuer, clientId?, pending}`. */
export async function addNonceChallenge(
  req: Request,
  challenges: NonceChallenges,
): Promise<Response> {
  const body = validateObject<{ issuer: string; clientId?: string }>(
    await readJsonBody(req),
    CHALLENGE_SCHEMA,
  );
  if (!challenges.add(body.issuer, body.clientId)) {
    throw new HttpError(
      409,
      "too_many_nonce_challenges",
      `at most ${MAX_NONCE_CHALLENGES} nonce challenges wait; DELETE /_mock/dpop/nonce-challenge or reset first`,
    );
  }
  return controlJson({ ...body, pending: challenges.list().length });
}

/** GET → `{count, challenges}`, oldest first. */
export function listNonceChallenges(challenges: NonceChallenges): Response {
  const list = challenges.list();
  return controlJson({ count: list.length, challenges: list });
}

/** DELETE → `{count: 0}`. */
export function clearNonceChallenges(challenges: NonceChallenges): Response {
  challenges.clear();
  return controlJson({ count: 0 });
}
