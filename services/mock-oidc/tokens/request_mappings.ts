/**
 * Request mappings: pick the first mapping whose parameter matches and expand its claim
 * templates, as upstream's RequestMappingTokenCallback does.
 *
 * @module
 */

import type { RequestMapping } from "./callback.ts";
import { MAX_MATCHED_LENGTH, patternProblem } from "./safe_pattern.ts";

/** What a mapping can match on and substitute. */
export interface MappingInput {
  /** Token request form parameters. */
  params: URLSearchParams;
  /** Authenticated client id (Basic auth included). */
  clientId: string;
  /** Login or password-grant username, matched as `subject` when no form param has that name. */
  subject?: string;
}

/** The first mapping that matches, or undefined. */
export function findMapping(
  mappings: readonly RequestMapping[],
  input: MappingInput,
): RequestMapping | undefined {
  return mappings.find((mapping) =>
    valuesOf(mapping.param, input).some((v) => matches(mapping, v))
  );
}

function valuesOf(param: string, input: MappingInput): string[] {
  const values = input.params.getAll(param);
  if (param === "client_id" && !values.includes(input.clientId)) values.push(input.clientId);
  if (param === "subject" && values.length === 0 && input.subject !== undefined) {
    values.push(input.subject);
  }
  return values;
}

function matches(mapping: RequestMapping, value: string): boolean {
  if (mapping.match === "*" || mapping.match === value) return true;
  // Registration refuses unsafe patterns; this guards any other way in (see safe_pattern.ts).
  if (value.length > MAX_MATCHED_LENGTH || patternProblem(mapping.match)) return false;
  try {
    return new RegExp(`^(?:${mapping.match})$`).test(value);
  } catch {
    return false; // an invalid regex degrades to exact match only
  }
}

/**
 * Replace `${name}` placeholders inside strings of nested objects and arrays. Variables: form
 * params (multi-values joined by a space), `subject`, and `clientId`/`client_id` (authoritative).
 * Unknown placeholders stay verbatim.
 */
export function expandTemplates(value: unknown, input: MappingInput): unknown {
  const vars = new Map<string, string>();
  if (input.subject !== undefined) vars.set("subject", input.subject);
  for (const name of new Set(input.params.keys())) {
    vars.set(name, input.params.getAll(name).join(" "));
  }
  vars.set("clientId", input.clientId);
  vars.set("client_id", input.clientId);
  return expand(value, vars);
}

function expand(value: unknown, vars: Map<string, string>): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{(\w+)\}/g, (whole, name) => vars.get(name) ?? whole);
  }
  if (Array.isArray(value)) return value.map((item) => expand(item, vars));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, vars)]));
  }
  return value;
}
