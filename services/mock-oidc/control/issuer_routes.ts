/**
 * `/_mock/issuers`: per-issuer settings, a trailing slash on the issuer URL and fields added to or
 * replacing those of the discovery document. PUT sets (replaces) one issuer's until reset, GET
 * lists them (the JSON configuration's too), DELETE drops the control plane's, so the configured
 * ones apply again.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import { type IssuerOptions, type Issuers, MAX_ISSUER_SETTINGS } from "../protocol/issuers.ts";
import { controlJson } from "./control_deps.ts";
import {
  claimsDepthProblem,
  type FieldRule,
  issuerProblem,
  readJsonBody,
  validateObject,
} from "./validation.ts";

const ISSUER_SETTINGS_SCHEMA: Record<string, FieldRule> = {
  issuer: { type: "string", required: true, check: issuerProblem },
  trailingSlash: { type: "boolean" },
  discovery: { type: "object", check: claimsDepthProblem },
};

interface IssuerSettingsBody extends IssuerOptions {
  issuer: string;
}

function entryOf(issuer: string, source: string, options: IssuerOptions) {
  return {
    issuer,
    source,
    trailingSlash: options.trailingSlash ?? false,
    discovery: options.discovery ?? {},
  };
}

/** PUT /_mock/issuers → the issuer's settings as now applied. */
export async function putIssuer(req: Request, issuers: Issuers): Promise<Response> {
  const body = validateObject<IssuerSettingsBody>(await readJsonBody(req), ISSUER_SETTINGS_SCHEMA);
  const options: IssuerOptions = {};
  if (body.trailingSlash !== undefined) options.trailingSlash = body.trailingSlash;
  if (body.discovery !== undefined) options.discovery = body.discovery;
  if (!issuers.set(body.issuer, options)) {
    throw new HttpError(
      409,
      "too_many_issuer_settings",
      `at most ${MAX_ISSUER_SETTINGS} issuers have settings from the control plane; ` +
        "DELETE /_mock/issuers or reset first",
    );
  }
  return controlJson(entryOf(body.issuer, "control", options));
}

/** GET /_mock/issuers → `{count, issuers: [{issuer, source, trailingSlash, discovery}]}`. */
export function listIssuers(issuers: Issuers): Response {
  const list = issuers.list().map((e) => entryOf(e.issuer, e.source, e.options));
  return controlJson({ count: list.length, issuers: list });
}

/** DELETE /_mock/issuers → `{count}`: the settings left, the configured ones. */
export function clearIssuers(issuers: Issuers): Response {
  issuers.clear();
  return controlJson({ count: issuers.list().length });
}
