/**
 * What `run.ts` and its `--before` child (`execute_rounds.ts`) both measure: the program, the
 * registry it calls (built with the classes of whichever tree is measured), the same capabilities
 * as plain host functions for the interpreter's `run()`, and the timer.
 * @module
 */
import type * as McpServer from "../../../services/mcp-server/mod.ts";

/** The program: three capability calls. */
export const SOURCE = `def main():
  a = records.get(key="k1")
  b = records.list(prefix="k", limit=5)
  n = time.now()
  return {"value": a["record"]["value"], "count": len(b["records"]), "ms": n["unix_ms"]}
`;

/** The parts of mcp-server's module the registry needs (this tree's, or another checkout's). */
export type RegistryKit = Pick<typeof McpServer, "CapabilityRegistry" | "t">;

/** The registry `SOURCE` calls, built with `kit`'s classes. */
export function demoRegistry(kit: RegistryKit): McpServer.CapabilityRegistry {
  const { t } = kit;
  const registry = new kit.CapabilityRegistry();
  const store = new Map([["k1", "v1"], ["k2", "v2"], ["k3", "v3"]]);
  const rec = t.struct({ key: t.str(), value: t.str() });
  registry.register({
    name: "records.get",
    summary: "Get a record",
    input: t.fields({ key: t.str() }),
    output: t.fields({ record: t.ptr(rec) }),
    handler: ({ key }) => ({
      record: store.has(key as string) ? { key, value: store.get(key as string) } : null,
    }),
  });
  registry.register({
    name: "records.list",
    summary: "List records",
    input: t.fields({ prefix: t.ptr(t.str()), limit: t.ptr(t.int()) }),
    output: t.fields({ records: t.list(rec) }),
    handler: ({ prefix, limit }) => ({
      records: [...store].filter(([k]) => k.startsWith((prefix as string) ?? ""))
        .slice(0, (limit as number) ?? 100).map(([key, value]) => ({ key, value })),
    }),
  });
  registry.register({
    name: "time.now",
    summary: "Now",
    output: t.fields({ unix_ms: t.int() }),
    handler: () => ({ unix_ms: 1_700_000_000_000 }),
  });
  return registry;
}

/** `registry`'s capabilities as the interpreter's predeclared host functions (no MCP, no worker). */
export function predeclaredOf(registry: McpServer.CapabilityRegistry) {
  const host = (name: string) => (_a: unknown[], kw: Record<string, unknown>) =>
    registry.get(name)!.handler(kw, {
      subject: { id: "b" },
      signal: new AbortController().signal,
    });
  return {
    records: { get: host("records.get"), list: host("records.list") },
    time: { now: host("time.now") },
  };
}

/** Milliseconds of each of `n` calls of `fn`, one at a time. */
export async function timeMany(
  n: number,
  fn: () => Promise<unknown> | unknown,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}
