/** The capability registry of the execute tests: echoes, typed inputs and failing handlers. */
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { AgentError } from "./agent_error.ts";
import { sampleRegistry } from "./_test_support.ts";

/** Wraps a body into `def main():`. */
export const main = (body: string): string =>
  `def main():\n${body.split("\n").map((l) => `  ${l}`).join("\n")}\n`;

/** Sample capabilities plus echo, typed and broken ones. */
export function testRegistry(): CapabilityRegistry {
  const registry = sampleRegistry();
  registry.register({
    name: "echo.nested",
    summary: "echo",
    input: t.fields({ v: t.list(t.list(t.list(t.int()))) }),
    output: t.fields({ v: t.list(t.list(t.list(t.int()))) }),
    handler: ({ v }) => ({ v }),
  });
  registry.register({
    name: "echo.text",
    summary: "echo",
    input: t.fields({ s: t.str() }),
    output: t.fields({ s: t.str() }),
    handler: ({ s }) => ({ s }),
  });
  registry.register({
    name: "echo.typed",
    summary: "typed",
    input: t.fields({
      filter: t.struct({ owner: t.str() }),
      tags: t.list(t.str()),
      labels: t.dict(t.str()),
      small: t.ptr(t.uint8()),
      ratio: t.ptr(t.float32()),
    }),
    output: t.fields({ ok: t.bool() }),
    handler: () => ({ ok: true }),
  });
  registry.register({
    name: "broken.agent",
    summary: "fails",
    input: t.fields({ msg: t.str() }),
    handler: ({ msg }) => {
      throw new AgentError(msg as string);
    },
  });
  registry.register({
    name: "broken.returned",
    summary: "returns an agent error",
    handler: () => new AgentError("returned"),
  });
  registry.register({
    name: "broken.plain",
    summary: "fails",
    handler: () => {
      throw new Error("secret database detail");
    },
  });
  registry.register({
    name: "broken.nan",
    summary: "bad float",
    output: t.fields({ x: t.float64() }),
    handler: () => ({ x: NaN }),
  });
  registry.register({
    name: "broken.unsigned",
    summary: "bad uint",
    output: t.fields({ x: t.uint64() }),
    handler: () => ({ x: 1n << 63n }),
  });
  return registry;
}
