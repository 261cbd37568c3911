/**
 * Tool-call metrics on the kit's registry: `mcp_tool_calls_total{tool, outcome}` (outcome `ok` or
 * the stable error text without detail) and `mcp_tool_call_duration_seconds{tool}`.
 * @module
 */
import { Counter, Histogram, type Metrics } from "@svc/shared/metrics";

/** Registers the instruments and returns the observer to pass to the server. */
export function toolMetrics(metrics: Metrics): (tool: string, outcome: string, s: number) => void {
  const calls = new Counter({
    name: "mcp_tool_calls_total",
    help: "MCP tool calls after input validation, by tool and outcome",
    labelNames: ["tool", "outcome"] as const,
    registers: [metrics.registry],
  });
  const duration = new Histogram({
    name: "mcp_tool_call_duration_seconds",
    help: "Time to answer a valid MCP tool call, by tool",
    labelNames: ["tool"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics.registry],
  });
  return (tool, outcome, seconds) => {
    calls.inc({ tool, outcome });
    duration.observe({ tool }, seconds);
  };
}
