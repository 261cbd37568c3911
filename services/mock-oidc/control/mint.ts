/**
 * POST /_mock/mint: issues a token through the same factory as the token endpoint, so it
 * verifies against `/{issuer}/jwks` and is accepted at userinfo and introspect.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import { UnknownKid } from "../tokens/token_factory.ts";
import { type Algorithm, ALGORITHMS } from "../keys/algorithms.ts";
import { type ControlDeps, controlJson } from "./control_deps.ts";
import {
  claimsDepthProblem,
  issuerProblem,
  readJsonBody,
  validateObject,
  validationError,
} from "./validation.ts";

/** `POST /_mock/mint`'s body (docs/mock-oidc.md#control-plane). */
export interface MintRequest {
  /** The issuer id (`default`, `realms/x`). */
  issuer: string;
  /** Overrides `iss`. @default the issuer URL as the API listener serves it */
  issuerUrl?: string;
  /** `sub`. @default a random UUID */
  subject?: string;
  /** `aud`: a list (one entry is written as a string); none when omitted. */
  audience?: string[] | null;
  /** Scopes, written space-separated as `scope`. */
  scope?: string[] | null;
  /** The client the token is for. @default "default" */
  clientId?: string;
  /** Which token. @default "access_token" */
  kind?: "access_token" | "id_token";
  /** The JWS `typ`. @default "JWT" */
  typ?: string;
  /** Further claims. */
  claims?: Record<string, unknown>;
  /** Lifetime. @default {3600} */
  expirySeconds?: number;
  /** Sign with this key of the issuer (`/_mock/keys`) rather than its active one. */
  kid?: string;
  /** Sign with a key of the issuer of this algorithm (the active one first). */
  algorithm?: Algorithm;
  /** Bind the access token to this public key (RFC 9449 `cnf.jkt`): a DPoP-bound token. */
  dpopJwk?: Record<string, unknown>;
}

/** Members of a JWK that only a private or symmetric key has. */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

function publicJwkProblem(value: unknown): string | undefined {
  const jwk = value as Record<string, unknown>;
  const found = PRIVATE_MEMBERS.filter((m) => Object.hasOwn(jwk, m));
  if (found.length > 0) {
    return `must be a public key: private members ${found.join(", ")} are refused`;
  }
  if (!["EC", "RSA", "OKP"].includes(jwk.kty as string)) return "kty must be EC, RSA or OKP";
  return undefined;
}

/** RFC 7638 thumbprint of a public JWK; a 422 when its members do not make one. */
async function thumbprint(jwk: Record<string, unknown>): Promise<string> {
  const { calculateJwkThumbprint } = await import("jose");
  try {
    return await calculateJwkThumbprint(jwk, "sha256");
  } catch (cause) {
    throw validationError([{
      location: "body.dpopJwk",
      message: `not a usable public JWK: ${(cause as Error).message}`,
    }]);
  }
}

const MINT_SCHEMA = {
  issuer: { type: "string", required: true, check: issuerProblem },
  issuerUrl: {
    type: "string",
    check: (v: unknown) => URL.canParse(v as string) ? undefined : "expected an absolute URL",
  },
  subject: { type: "string" },
  audience: { type: "array", nullable: true, items: { type: "string" } },
  scope: { type: "array", nullable: true, items: { type: "string" } },
  clientId: { type: "string" },
  kind: { type: "string", enum: ["access_token", "id_token"] },
  typ: { type: "string" },
  claims: { type: "object", check: claimsDepthProblem },
  expirySeconds: { type: "integer" },
  kid: { type: "string" },
  algorithm: { type: "string", enum: ALGORITHMS },
  dpopJwk: { type: "object", check: publicJwkProblem },
} as const;

const FORWARDED = ["x-forwarded-host", "x-forwarded-proto", "x-forwarded-port"];

/** The issuer URL as the protocol endpoints of this issuer will see it. */
function defaultIssuerUrl(req: Request, issuer: string, deps: ControlDeps): string {
  const api = deps.apiOrigin?.();
  if (api && !FORWARDED.some((name) => req.headers.has(name))) {
    return deps.issuerUrlOf(new Request(`${api}/`), issuer);
  }
  return deps.issuerUrlOf(req, issuer);
}

/** Mint defaults: `kind` access_token, `clientId` default, `typ` JWT, `expirySeconds` 3600. */
export async function mintToken(req: Request, deps: ControlDeps): Promise<Response> {
  const body = validateObject<MintRequest>(await readJsonBody(req), MINT_SCHEMA);
  const kind = body.kind ?? "access_token";
  if (body.dpopJwk !== undefined && kind !== "access_token") {
    throw validationError([{
      location: "body.dpopJwk",
      message: "binds access tokens only (kind access_token)",
    }]);
  }
  const jkt = body.dpopJwk === undefined ? undefined : await thumbprint(body.dpopJwk);
  // The binding is the token's own cnf: it overrides a cnf among the claims.
  const claims = jkt === undefined ? body.claims : { ...body.claims, cnf: { jkt } };
  const issued = await deps.tokens.issue({
    kid: body.kid,
    algorithm: body.algorithm,
    issuerId: body.issuer,
    issuerUrl: body.issuerUrl ?? defaultIssuerUrl(req, body.issuer, deps),
    kind,
    subject: body.subject ?? crypto.randomUUID(),
    // Omitted audience means none stamped; null is the same as omitted.
    audience: body.audience ?? null,
    scope: body.scope ?? undefined,
    clientId: body.clientId ?? "default",
    claims,
    typ: body.typ ?? "JWT",
    expirySeconds: body.expirySeconds ?? 3600,
  }).catch((err) => {
    if (err instanceof UnknownKid) throw new HttpError(404, "no_such_key", err.message);
    throw err;
  });
  deps.onMint?.(kind);
  return controlJson({
    token: issued.token,
    kid: issued.kid,
    algorithm: issued.algorithm,
    issuer: issued.issuer,
    expiresAt: issued.expiresAt.toISOString(),
    claims: issued.claims,
    tokenType: jkt === undefined ? "Bearer" : "DPoP",
    ...(jkt === undefined ? {} : { jkt }),
  });
}
