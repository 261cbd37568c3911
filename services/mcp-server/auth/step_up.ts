/**
 * Step-up authorization: the policy file's `scopes` rules give capabilities the OAuth scopes a
 * caller's token must carry (the names a program uses: `program_scopes.ts`, off the start path,
 * as it needs the interpreter's parser). Before a program runs, the capabilities it names (its dotted names
 * below capability roots are static in the source: `predeclaredPaths`) are checked against the
 * token's scopes; over HTTP a missing one is a 403 `insufficient_scope` naming what the program
 * needs, so that the client can get a token with them and retry (MCP authorization 2025-11-25,
 * "Scope challenge handling"); elsewhere the tool error `insufficient scope: <missing>`.
 *
 * @module
 */
import type { Subject } from "../capabilities/registry.ts";
import { capabilityMatches, type ScopeRule } from "./policy.ts";

/** The scopes capabilities require. */
export interface StepUp {
  /** Every scope some rule requires, sorted (for `scopes_supported`). */
  readonly all: readonly string[];
  /** The scopes a capability requires (sorted; empty: none). */
  scopesOf(capability: string): readonly string[];
}

/** The step-up rules of a policy; undefined when it has none. */
export function stepUpOf(rules: readonly ScopeRule[] | undefined): StepUp | undefined {
  if (!rules || rules.length === 0) return undefined;
  const cache = new Map<string, readonly string[]>();
  return {
    all: [...new Set(rules.flatMap((rule) => rule.scopes))].sort(),
    scopesOf(capability) {
      let scopes = cache.get(capability);
      if (!scopes) {
        const matching = rules.filter((rule) =>
          rule.capabilities.some((pattern) => capabilityMatches(pattern, capability))
        );
        scopes = [...new Set(matching.flatMap((rule) => rule.scopes))].sort();
        cache.set(capability, scopes);
      }
      return scopes;
    },
  };
}

/** The scopes of `needed` that `granted` lacks. */
export function missingScopes(needed: readonly string[], granted: readonly string[]): string[] {
  return needed.filter((scope) => !granted.includes(scope));
}

/** The scopes a subject's token carries (its `scopes` claim); none when it has no token. */
export function grantedScopes(subject: Subject): readonly string[] {
  const scopes = subject.scopes;
  return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === "string") : [];
}
