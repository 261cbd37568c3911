/**
 * The capability registry: a host program registers capabilities by dotted name with typed input
 * and output descriptions, summary, description, search terms and a handler; only enabled
 * capabilities are visible to search, describe and execute.
 *
 * @example
 * ```ts
 * import { CapabilityRegistry } from "./registry.ts";
 * import { t } from "./schema.ts";
 * const registry = new CapabilityRegistry();
 * registry.register({
 *   name: "records.lookup",
 *   summary: "Look up a record by key",
 *   input: t.fields({ key: t.str() }),
 *   output: t.fields({ value: t.ptr(t.str()) }),
 *   handler: ({ key }) => ({ value: key === "a" ? "1" : null }),
 * });
 * ```
 * @module
 */
import type { Field } from "./schema.ts";
import { capabilityNameProblem } from "./names.ts";
import { fieldListProblem } from "./check.ts";
import { signature } from "./notation.ts";

/** Who is calling: the trusted subject the resolver produced. */
export interface Subject {
  /** Stable, non-empty id of the caller. */
  id: string;
  /** The OAuth scopes of the caller's token (HTTP); none without one (stdio). */
  scopes?: readonly string[];
  /** Further claims the resolver chose to keep. */
  [claim: string]: unknown;
}

/** What a handler gets besides its canonical arguments. */
export interface CapabilityContext {
  /** The trusted caller. */
  subject: Subject;
  /** Aborted when the request is canceled or the execute call ends. */
  signal: AbortSignal;
}

/** A capability implementation: canonical arguments in, a value of the output shape out. */
export type CapabilityHandler = (
  args: Record<string, unknown>,
  context: CapabilityContext,
) => unknown;

/** What a host registers. */
export interface CapabilityDefinition {
  /** Dotted name such as `records.lookup`. */
  name: string;
  /** Stable id for the host's own bookkeeping; never shown to clients. */
  id?: string;
  /** Compact one-line summary shown in search results. */
  summary: string;
  /** Longer text, searched with the lowest weight. @default "" */
  description?: string;
  /** Extra words search should match. */
  searchTerms?: string[];
  /** Root input fields (keyword arguments), in declaration order. @default [] */
  input?: Field[];
  /** Root output fields, in declaration order. @default [] */
  output?: Field[];
  /** Visible to search, describe and execute. @default true */
  enabled?: boolean;
  /**
   * Only reads: changes nothing (an HTTP GET or HEAD). `execute` is announced read-only only when
   * every enabled capability is. @default false
   */
  readOnly?: boolean;
  /** Reaches a system outside this server (an HTTP API). @default false */
  openWorld?: boolean;
  /** The implementation. */
  handler: CapabilityHandler;
}

/** A registered capability with its derived signature. */
export interface Capability {
  /** Dotted name. */
  readonly name: string;
  /** The host's stable id (never shown to clients). */
  readonly id?: string;
  /** Compact summary. */
  readonly summary: string;
  /** Longer description ("" when none). */
  readonly description: string;
  /** Extra search words. */
  readonly searchTerms: readonly string[];
  /** Root input fields in declaration order. */
  readonly input: readonly Field[];
  /** Root output fields in declaration order. */
  readonly output: readonly Field[];
  /** `name(*, key: str, …)` or `name()`. */
  readonly signature: string;
  /** The implementation. */
  readonly handler: CapabilityHandler;
  /** Only reads (changes nothing). */
  readonly readOnly: boolean;
  /** Reaches a system outside this server. */
  readonly openWorld: boolean;
  /** Visible to search, describe and execute. */
  enabled: boolean;
}

/** Registration was refused; `message` says why ("Cannot register <name>: <reason>"). */
export class RegistrationError extends Error {
  /** Stable code: the capability was not registered. */
  readonly code = "registration_refused";
  /** The name that was refused. */
  readonly capability: string;
  /**
   * Creates the error.
   * @param capability The name that was refused.
   * @param reason Why, e.g. `root "json" is reserved`.
   */
  constructor(capability: string, reason: string) {
    super(`Cannot register capability "${capability}": ${reason}`);
    this.name = "RegistrationError";
    this.capability = capability;
  }
}

/** Holds the capabilities of one host; `version` changes whenever visibility changes. */
export class CapabilityRegistry {
  #byName = new Map<string, Capability>();
  /** Every proper dotted prefix of a registered name (`a`, `a.b` for `a.b.c`). */
  #namespaces = new Set<string>();
  #version = 0;

  /** Bumped on every registration and enable/disable; search indexes key on it. */
  get version(): number {
    return this.#version;
  }

  /**
   * Registers a capability.
   * @returns The registered capability with its signature.
   * @throws {RegistrationError} when a name, field or type is not acceptable.
   */
  register(def: CapabilityDefinition): Capability {
    const name = def.name;
    const fail = (reason: string) => new RegistrationError(name, reason);
    const nameProblem = capabilityNameProblem(name);
    if (nameProblem) throw fail(nameProblem);
    if (this.#byName.has(name)) throw fail("already registered");
    const prefixes = name.split(".").slice(0, -1).map((_, i, segs) =>
      segs.slice(0, i + 1).join(".")
    );
    const clash = this.#namespaces.has(name)
      ? name
      : prefixes.find((prefix) => this.#byName.has(prefix));
    if (clash !== undefined) {
      throw fail(`conflicts with "${clash}" (a name cannot also be a namespace)`);
    }
    if (typeof def.summary !== "string") throw fail("summary must be a string");
    if (typeof def.handler !== "function") throw fail("handler must be a function");
    const input = def.input ?? [];
    const output = def.output ?? [];
    const problem = fieldListProblem(input, "input") ?? fieldListProblem(output, "output");
    if (problem) throw fail(problem);
    const cap: Capability = {
      name,
      id: def.id,
      summary: def.summary,
      description: def.description ?? "",
      searchTerms: [...(def.searchTerms ?? [])],
      input: [...input],
      output: [...output],
      signature: signature(name, input),
      handler: def.handler,
      readOnly: def.readOnly ?? false,
      openWorld: def.openWorld ?? false,
      enabled: def.enabled ?? true,
    };
    this.#byName.set(name, cap);
    for (const prefix of prefixes) this.#namespaces.add(prefix);
    this.#version++;
    return cap;
  }

  /** Enables or disables a capability. @throws {RangeError} for an unknown name. */
  setEnabled(name: string, enabled: boolean): void {
    const cap = this.#byName.get(name);
    if (!cap) throw new RangeError(`Cannot change capability "${name}": not registered`);
    if (cap.enabled !== enabled) {
      cap.enabled = enabled;
      this.#version++;
    }
  }

  /** The enabled capability of exactly this name (no trimming, no case folding). */
  get(name: string): Capability | undefined {
    const cap = this.#byName.get(name);
    return cap?.enabled ? cap : undefined;
  }

  /** Every enabled capability, in registration order. */
  enabled(): Capability[] {
    return [...this.#byName.values()].filter((capability) => capability.enabled);
  }
}
