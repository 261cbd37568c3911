/**
 * `/v1/keys`: key management over the API, for the `admin` role only (each behind its row's
 * `auth` in `app.ts`: the caller arrives authenticated and allowed, in `ctx.principal`). Create (201, the key in
 * the answer once, never again), list (keyset-paginated like todos), get, revoke (idempotent:
 * revoking a revoked key answers it unchanged, keeping the first `revokedAt`). No answer carries
 * the key's digest beyond a 12-digit prefix. Every change bumps the process-wide key-change
 * generation before answering, so the change is in force on the next request in every worker,
 * and writes one audit log line (`audit: "api_key"`) without any secret.
 * @module
 */
import type { Logger } from "@svc/shared/log";
import { type ErrorDetail, HttpError } from "@svc/shared/problem";
import { readText } from "@svc/shared/http";
import { type ApiKeyRecord, type ApiKeyStore, keyStatus } from "./api_keys.ts";
import type { KeyChanges } from "./key_changes.ts";
import type { AuthedContext } from "./route_auth.ts";
import { requireJson } from "../http/content_type.ts";
import { LIMITS } from "../http/schemas.ts";
import { schemaJson } from "../http/schema_link.ts";
import type { CursorCodec } from "../todos/cursor.ts";
import { parseJsonObject, parseListQuery, pathId, unstorableText } from "../todos/validate.ts";

/** What the key routes need. */
export interface KeyRoutesDeps {
  keys: ApiKeyStore;
  changes: KeyChanges;
  cursorCodec(): Promise<CursorCodec>;
  logger: Logger;
  /** Judges expiry (epoch ms). */
  now: () => number;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

/**
 * The cursor scope of key pages. Subjects are Postgres text, which cannot hold NUL: no todo
 * scope can be this, so a key-page cursor is never a todo-page cursor, nor the reverse.
 */
const KEYS_SCOPE = "\u0000keys";

const ROLE = /^[a-z][a-z0-9_-]{0,31}$/;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Epoch ms of an RFC 3339 date-time, or NaN; no rolling over (`Date.parse` takes Feb 30). */
function parseRfc3339(text: string): number {
  const m = RFC3339.exec(text);
  if (!m) return NaN;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate(); // day 0 of the next month
  const offset = m[7] === undefined ? 0 : Number(m[8]) * 60 + Number(m[9]);
  if (mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || s > 59) return NaN;
  if (m[7] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return NaN;
  return offset <= 24 * 60 ? Date.parse(text) : NaN;
}

function validationFailed(errors: ErrorDetail[]): HttpError {
  return new HttpError(422, "validation_failed", "validation failed", { errors });
}

function notFound(id: string): HttpError {
  return new HttpError(404, "not_found", "key not found", {
    errors: [{ location: "path.id", message: "no key with this id", value: id }],
  });
}

/** Checks a CreateKeyInputBody; `nowMs` judges whether `expiresAt` is in the future. */
function parseCreateKey(
  text: string,
  nowMs: number,
): { subject: string; roles: string[]; expiresAt?: string } {
  const record = parseJsonObject(text);
  const errors: ErrorDetail[] = [];
  for (const key of Object.keys(record)) {
    if (!["subject", "roles", "expiresAt", "$schema"].includes(key)) {
      errors.push({ location: `body.${key}`, message: "unexpected property", value: record[key] });
    }
  }
  if ("$schema" in record && typeof record.$schema !== "string") {
    errors.push({ location: "body.$schema", message: "expected string", value: record.$schema });
  }
  for (const name of ["subject", "roles"]) {
    if (!(name in record)) {
      errors.push({
        location: "body",
        message: `expected required property ${name} to be present`,
        value: record,
      });
    }
  }
  const { subject, roles, expiresAt } = record;
  if ("subject" in record) {
    if (typeof subject !== "string") {
      errors.push({ location: "body.subject", message: "expected string", value: subject });
    } else {
      const length = [...subject].length;
      if (length < LIMITS.subjectMin) {
        errors.push({
          location: "body.subject",
          message: `expected length >= ${LIMITS.subjectMin}`,
          value: subject,
        });
      } else if (length > LIMITS.subjectMax) {
        errors.push({
          location: "body.subject",
          message: `expected length <= ${LIMITS.subjectMax}`,
          value: subject,
        });
      }
      const unstorable = unstorableText(subject);
      if (unstorable) {
        errors.push({ location: "body.subject", message: unstorable, value: subject });
      }
    }
  }
  if ("roles" in record) {
    if (!Array.isArray(roles)) {
      errors.push({ location: "body.roles", message: "expected array", value: roles });
    } else if (roles.length < LIMITS.rolesMin) {
      errors.push({
        location: "body.roles",
        message: `expected array length >= ${LIMITS.rolesMin}`,
        value: roles,
      });
    } else if (roles.length > LIMITS.rolesMax) {
      errors.push({
        location: "body.roles",
        message: `expected array length <= ${LIMITS.rolesMax}`,
        value: roles.length,
      });
    } else {
      roles.forEach((role, i) => {
        if (typeof role !== "string") {
          errors.push({ location: `body.roles[${i}]`, message: "expected string", value: role });
        } else if (!ROLE.test(role)) {
          errors.push({
            location: `body.roles[${i}]`,
            message: `expected string to match pattern ${ROLE.source}`,
            value: role,
          });
        }
      });
    }
  }
  let expiry: string | undefined;
  if (expiresAt !== undefined) {
    const at = typeof expiresAt === "string" ? parseRfc3339(expiresAt) : NaN;
    if (Number.isNaN(at)) {
      errors.push({
        location: "body.expiresAt",
        message: "expected string to be RFC 3339 date-time",
        value: expiresAt,
      });
    } else if (at <= nowMs) {
      errors.push({
        location: "body.expiresAt",
        message: "expected a time in the future",
        value: expiresAt,
      });
    } else expiry = new Date(at).toISOString();
  }
  if (errors.length > 0) throw validationFailed(errors);
  const unique = [...new Set(roles as string[])];
  return expiry === undefined
    ? { subject: subject as string, roles: unique }
    : { subject: subject as string, roles: unique, expiresAt: expiry };
}

/** Builds the handlers. */
export function createKeyRoutes(deps: KeyRoutesDeps) {
  const { keys, changes, logger, now } = deps;
  const view = (record: ApiKeyRecord) => {
    const { digestPrefix, ...rest } = record;
    return { ...rest, status: keyStatus(record, now()), digestPrefix };
  };
  return {
    async create(req: Request, ctx: AuthedContext): Promise<Response> {
      requireJson(req);
      const input = parseCreateKey(
        await readText(req, { limit: deps.maxBodyBytes, timeoutMs: deps.bodyTimeoutMs }),
        now(),
      );
      const { key, record } = await keys.create(input);
      changes.bump(); // a digest cached as unknown must not stay so
      logger.info("api key created", {
        audit: "api_key",
        action: "create",
        keyId: record.id,
        subject: record.subject,
        roles: record.roles,
        expiresAt: record.expiresAt,
        by: ctx.principal.subject,
      });
      const { id, ...rest } = view(record);
      return schemaJson(req, "CreateKeyOutputBody", { id, key, ...rest }, {
        status: 201,
        headers: { location: `/v1/keys/${id}`, "cache-control": "no-store" },
      });
    },

    async list(req: Request, ctx: AuthedContext): Promise<Response> {
      const query = parseListQuery(ctx.url);
      const codec = await deps.cursorCodec();
      // A cursor not minted for key pages throws InvalidCursorError: 400 at the boundary.
      const after = query.cursor === undefined
        ? undefined
        : await codec.decode(query.cursor, KEYS_SCOPE);
      const page = await keys.page({ limit: query.limit, after });
      const body: { keys: unknown[]; nextCursor?: string } = { keys: page.keys.map(view) };
      if (page.more) {
        const last = page.keys[page.keys.length - 1];
        body.nextCursor = await codec.encode(
          { createdAt: last.createdAt, id: last.id },
          KEYS_SCOPE,
        );
      }
      return schemaJson(req, "ListKeysOutputBody", body);
    },

    async get(req: Request, ctx: AuthedContext): Promise<Response> {
      const id = pathId(ctx.params.id);
      const record = await keys.get(id);
      if (!record) throw notFound(id);
      return schemaJson(req, "ApiKey", view(record));
    },

    async revoke(req: Request, ctx: AuthedContext): Promise<Response> {
      const id = pathId(ctx.params.id);
      const revoked = await keys.revoke(id);
      if (!revoked) throw notFound(id);
      if (revoked.changed) {
        changes.bump(); // before the answer: the next request anywhere in the process sees it
        logger.info("api key revoked", {
          audit: "api_key",
          action: "revoke",
          keyId: revoked.record.id,
          subject: revoked.record.subject,
          by: ctx.principal.subject,
        });
      }
      return schemaJson(req, "ApiKey", view(revoked.record));
    },
  };
}
