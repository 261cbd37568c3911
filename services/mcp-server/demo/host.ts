/**
 * The demo host: in-memory `records.*` and `time.now` (the todo API and mock-oidc's control plane
 * come through the OpenAPI host, `--openapi`), so `deno task dev` gives an agent something real to
 * do. Without a policy file it allows its own demo capabilities, and those of the `--openapi` APIs,
 * to any authenticated subject.
 * @module
 */
import { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import type { Authorizer } from "../auth/authorizer.ts";
import { registerRecords } from "./records.ts";

/** Options of {@linkcode createDemoRegistry}. */
export interface DemoOptions {
  /** @default Date.now */
  now?: () => number;
}

/** Builds the demo registry. */
export function createDemoRegistry(options: DemoOptions = {}): CapabilityRegistry {
  const registry = new CapabilityRegistry();
  const now = options.now ?? Date.now;
  registerRecords(registry);
  registry.register({
    name: "time.now",
    readOnly: true,
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

/**
 * Allows the demo's own capabilities (records, time) and those under `apiRoots` (the `--openapi`
 * API names) to any subject.
 */
export function demoAuthorizer(apiRoots: readonly string[] = []): Authorizer {
  const roots = new Set(["records", "time", ...apiRoots]);
  return ({ capability }) => roots.has(capability.split(".")[0]);
}
