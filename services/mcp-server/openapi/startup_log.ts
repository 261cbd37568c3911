/**
 * What the start-up log says about the `--openapi` APIs. Expected, harmless conditions are one
 * `info` line; only what points at a mistake is a `warn`, one per item:
 *
 * - `info` `OpenAPI API registered` per API (its enabled and disabled counts);
 * - `info` `OpenAPI operations disabled` once, naming every operation the notation cannot express
 *   (a non-JSON response or body, `oneOf` without a discriminator, …: documented, by design, and
 *   `--list-capabilities` gives each reason). mock-oidc's HTML pages are twelve of them under
 *   `deno task dev`;
 * - `warn` `OpenAPI operation disabled` per operation the registry refused (its name or definition
 *   is unusable: a conflict in the document or the settings, not a limit of the notation);
 * - `warn` `OpenAPI API has no usable operation` for an API none of whose operations is enabled
 *   (a wrong document, most likely).
 *
 * @module
 */
import type { Logger } from "@svc/shared/log";
import type { ApiReport } from "./host.ts";

/** The words of the log lines: of OpenAPI APIs, or (the same lines) of `--mcp` servers. */
const WORDS = {
  openapi: {
    api: "OpenAPI API",
    op: "OpenAPI operation",
    ops: "OpenAPI operations",
    usable: "operation",
  },
  mcp: { api: "MCP server", op: "MCP tool", ops: "MCP tools", usable: "tool" },
};

/**
 * Logs the outcome of registering the APIs as the module documentation says; `kind` `mcp` words
 * them for `--mcp` servers (`MCP server registered`, `MCP tools disabled`, ...).
 */
export function logApiReports(
  logger: Logger,
  apis: readonly ApiReport[],
  kind: keyof typeof WORDS = "openapi",
): void {
  const w = WORDS[kind];
  const unexpressible: string[] = [];
  for (const api of apis) {
    logger.info(`${w.api} registered`, {
      api: api.name,
      enabled: api.enabled.length,
      disabled: api.disabled.length,
    });
    if (api.enabled.length === 0) {
      logger.warn(`${w.api} has no usable ${w.usable}`, {
        api: api.name,
        disabled: api.disabled.length,
      });
    }
    for (const d of api.disabled) {
      if (d.kind === "unexpressible") unexpressible.push(d.name);
      else logger.warn(`${w.op} disabled`, { capability: d.name, reason: d.reason });
    }
  }
  if (unexpressible.length > 0) {
    logger.info(`${w.ops} disabled`, {
      count: unexpressible.length,
      capabilities: unexpressible,
      reason: "the notation cannot express them; --list-capabilities gives each one's",
    });
  }
}
