/**
 * The declarative authorization policy file (JSON). Deny by default: a call is allowed only when
 * some rule matches its subject, its capability name and every argument condition.
 *
 * ```json
 * {"rules": [{
 *   "subjects": ["alice", "ci-bot"],
 *   "capabilities": ["records.*", "time.now"],
 *   "when": [
 *     {"argument": "owner", "equals": "$subject"},
 *     {"argument": "filter.state", "in": ["open", "done"]}
 *   ]
 * }]}
 * ```
 *
 * `subjects` are subject ids (`"*"`: any authenticated subject); `capabilities` are exact names,
 * `"ns.*"` (anything below `ns`) or `"*"`; `when` is optional and every condition must hold;
 * `"$subject"` stands for the caller's id. The file is JSON: one strict format, parsed by the
 * runtime with no dependency, and what the policy tests write.
 *
 * A condition whose argument is absent does not hold. A condition on a list or dict value cannot
 * be evaluated: the call fails with `authorization policy failure`.
 * @module
 */
import type { AuthorizationRequest, Authorizer } from "./authorizer.ts";

/** One argument condition. */
export interface Condition {
  /** Dotted path into the canonical arguments. */
  argument: string;
  /** Holds when the argument equals this value (`"$subject"`: the caller's id). */
  equals?: unknown;
  /** Holds when the argument equals one of these values. */
  in?: unknown[];
}

/** One allow rule. */
export interface PolicyRule {
  /** Subject ids; `"*"` is any authenticated subject. */
  subjects: string[];
  /** Exact names, `"ns.*"` or `"*"`. */
  capabilities: string[];
  /** Conditions that must all hold. */
  when?: Condition[];
}

/** Step-up: the OAuth scopes a token needs for a program that names these capabilities. */
export interface ScopeRule {
  /** Exact names, `"ns.*"` or `"*"`. */
  capabilities: string[];
  /** Scopes the caller's token must carry (all of them). */
  scopes: string[];
}

/** A parsed policy. */
export interface Policy {
  /** Allow rules; a call no rule allows is denied. */
  rules: PolicyRule[];
  /** Scopes capabilities require (step-up authorization); none when absent. */
  scopes?: ScopeRule[];
}

/** The policy file is malformed; the message names the place, never secrets. */
export class PolicyError extends Error {
  /** Stable code: the policy file cannot be used. */
  readonly code = "policy_invalid";
  constructor(message: string) {
    super(message);
    this.name = "PolicyError";
  }
}

/** An OAuth scope token (RFC 6749 §3.3: printable ASCII but space, `"` and a backslash). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

const strings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length > 0 &&
  value.every((item) => typeof item === "string" && item !== "");

/** Parses and validates policy text. @throws {PolicyError} */
export function parsePolicy(text: string): Policy {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new PolicyError(`Cannot parse policy: ${(err as Error).message.split("\n")[0]}`);
  }
  if (!isObject(doc) || !onlyKeys(doc, ["rules", "scopes"]) || !Array.isArray(doc.rules)) {
    throw new PolicyError("Cannot read policy: want an object with a rules list (and scopes)");
  }
  if (doc.scopes !== undefined && !Array.isArray(doc.scopes)) {
    throw new PolicyError("Cannot read policy: scopes must be a list");
  }
  const scopes = (doc.scopes ?? []).map((rule: unknown, i: number): ScopeRule => {
    const at = `scopes[${i}]`;
    if (!isObject(rule) || !onlyKeys(rule, ["capabilities", "scopes"])) {
      throw new PolicyError(`Cannot read policy: ${at} must have capabilities and scopes`);
    }
    if (!strings(rule.capabilities)) {
      throw new PolicyError(`Cannot read policy: ${at}.capabilities`);
    }
    if (!strings(rule.scopes) || !rule.scopes.every((scope) => SCOPE_TOKEN.test(scope))) {
      throw new PolicyError(
        `Cannot read policy: ${at}.scopes must be a list of OAuth scope tokens (RFC 6749 §3.3)`,
      );
    }
    return { capabilities: rule.capabilities, scopes: rule.scopes };
  });
  const rules = doc.rules.map((rule: unknown, i: number): PolicyRule => {
    const at = `rules[${i}]`;
    if (!isObject(rule) || !onlyKeys(rule, ["subjects", "capabilities", "when"])) {
      throw new PolicyError(`Cannot read policy: ${at} must have subjects, capabilities, when`);
    }
    if (!strings(rule.subjects)) throw new PolicyError(`Cannot read policy: ${at}.subjects`);
    if (!strings(rule.capabilities)) {
      throw new PolicyError(`Cannot read policy: ${at}.capabilities`);
    }
    const when = rule.when === undefined ? undefined : rule.when;
    if (when !== undefined && !Array.isArray(when)) {
      throw new PolicyError(`Cannot read policy: ${at}.when must be a list`);
    }
    (when ?? []).forEach((condition: unknown, j: number) => {
      const conditionAt = `${at}.when[${j}]`;
      if (
        !isObject(condition) || !onlyKeys(condition, ["argument", "equals", "in"]) ||
        typeof condition.argument !== "string" || condition.argument === "" ||
        (("equals" in condition) === ("in" in condition)) ||
        ("in" in condition && !Array.isArray(condition.in))
      ) {
        throw new PolicyError(
          `Cannot read policy: ${conditionAt} needs argument and one of equals, in`,
        );
      }
    });
    return { subjects: rule.subjects, capabilities: rule.capabilities, when: when as Condition[] };
  });
  return doc.scopes === undefined ? { rules } : { rules, scopes };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function onlyKeys(object: Record<string, unknown>, keys: string[]): boolean {
  return Object.keys(object).every((key) => keys.includes(key));
}

/** Reads a policy file. @throws {PolicyError} */
export async function loadPolicy(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    throw new PolicyError(`Cannot read policy file "${path}"`);
  }
  return parsePolicy(text);
}

/** The policy evaluated against one call threw (maps to `authorization policy failure`). */
export class PolicyEvaluationError extends Error {
  /** Stable code (the client sees `authorization policy failure`). */
  readonly code = "policy_failure";
  constructor(message: string) {
    super(message);
    this.name = "PolicyEvaluationError";
  }
}

/** Whether a rule's capability pattern (exact, `"ns.*"` or `"*"`) matches a name. */
export function capabilityMatches(pattern: string, name: string): boolean {
  if (pattern === "*") return true;
  if (pattern.endsWith(".*")) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

function lookup(args: Record<string, unknown>, path: string): { found: boolean; value?: unknown } {
  let cur: unknown = args;
  for (const seg of path.split(".")) {
    if (!isObject(cur) || !Object.hasOwn(cur, seg)) return { found: false };
    cur = cur[seg];
  }
  return { found: true, value: cur };
}

function same(left: unknown, right: unknown): boolean {
  if (typeof left === "bigint" || typeof right === "bigint") {
    return (typeof left === "number" || typeof left === "bigint") &&
      (typeof right === "number" || typeof right === "bigint") && String(left) === String(right);
  }
  return left === right;
}

function holds(condition: Condition, req: AuthorizationRequest): boolean {
  const { found, value } = lookup(req.arguments, condition.argument);
  if (!found) return false;
  if (typeof value === "object" && value !== null) {
    throw new PolicyEvaluationError(`argument ${condition.argument} is not a scalar`);
  }
  const expand = (expected: unknown) => (expected === "$subject" ? req.subject.id : expected);
  if ("equals" in condition) return same(value, expand(condition.equals));
  return (condition.in ?? []).some((expected) => same(value, expand(expected)));
}

/** An authorizer for a parsed policy: deny by default. */
export function policyAuthorizer(policy: Policy): Authorizer {
  return (req) =>
    policy.rules.some((rule) =>
      (rule.subjects.includes("*") || rule.subjects.includes(req.subject.id)) &&
      rule.capabilities.some((pattern) => capabilityMatches(pattern, req.capability)) &&
      (rule.when ?? []).every((condition) => holds(condition, req))
    );
}
