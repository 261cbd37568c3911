/**
 * The demo host: `todos.*` (the todo API over HTTP), in-memory `records.*` and `time.now`, so
 * `deno task dev` gives an agent something real to do. Without a policy file it allows its own
 * demo capabilities to any authenticated subject.
 * @module
 */
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import type { Authorizer } from "../auth/authorizer.ts";
import { registerRecords } from "./records.ts";
import { registerTodos, type TodosOptions } from "./todos.ts";

/** Options of {@linkcode createDemoRegistry}. */
export interface DemoOptions {
  todos: TodosOptions;
  /** @default Date.now */
  now?: () => number;
}

/** Builds the demo registry. */
export function createDemoRegistry(options: DemoOptions): CapabilityRegistry {
  const registry = new CapabilityRegistry();
  const now = options.now ?? Date.now;
  registerTodos(registry, options.todos);
  registerRecords(registry);
  registry.register({
    name: "time.now",
    summary: "Current time (UTC) as RFC 3339 text and Unix milliseconds",
    searchTerms: ["clock", "date", "timestamp"],
    output: t.fields({ iso: t.str(), unix_ms: t.int64() }),
    handler: () => {
      const ms = now();
      return { iso: new Date(ms).toISOString(), unix_ms: ms };
    },
  });
  return registry;
}

/** Allows the demo's own capabilities (todos, records, time) to any subject. */
export function demoAuthorizer(): Authorizer {
  return ({ capability }) => /^(todos|records|time)\./.test(capability);
}
