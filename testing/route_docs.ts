/**
 * The routes a contract (`docs/<service>.md`) documents, read from its Markdown tables, so a test
 * can check them against the service's route table: the two must never drift.
 *
 * A table documents routes when its header has a `method` (or `methods`) column and a `path` (or
 * `paths`) column. Each row stands for every method of its method cell (comma-separated) times
 * every back-quoted path of its path cell; a row whose path cell holds no back-quoted path ("any
 * other path") documents a fallback and is left out.
 *
 * @module
 */

/** One documented route: an upper-case method and a path template as the contract spells it. */
export interface DocumentedRoute {
  /** e.g. `GET`. */
  method: string;
  /** e.g. `/{issuer}/token`. */
  path: string;
}

/**
 * Every route the Markdown tables of `markdown` document, in document order, duplicates removed.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { documentedRoutes } from "@svc/testing/route-docs";
 *
 * const doc = [
 *   "| method    | path                  | answer |",
 *   "| --------- | --------------------- | ------ |",
 *   "| GET, HEAD | `/healthz`, `/isalive` | ok     |",
 * ].join("\n");
 * assert.deepEqual(documentedRoutes(doc).map((r) => `${r.method} ${r.path}`), [
 *   "GET /healthz",
 *   "GET /isalive",
 *   "HEAD /healthz",
 *   "HEAD /isalive",
 * ]);
 * ```
 */
export function documentedRoutes(markdown: string): DocumentedRoute[] {
  const out: DocumentedRoute[] = [];
  const seen = new Set<string>();
  let columns: { method: number; path: number } | undefined;
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line.startsWith("|")) {
      columns = undefined;
      continue;
    }
    const cells = splitRow(line);
    if (columns === undefined) {
      // a header row is followed by its delimiter row
      if (!/^\|[\s:|-]+\|$/.test((lines[i + 1] ?? "").trim())) continue;
      const names = cells.map((c) => c.toLowerCase());
      const method = names.findIndex((n) => n === "method" || n === "methods");
      const path = names.findIndex((n) => n === "path" || n === "paths");
      columns = method >= 0 && path >= 0 ? { method, path } : { method: -1, path: -1 };
      i++; // the delimiter row
      continue;
    }
    if (columns.method < 0) continue;
    const methods = (cells[columns.method] ?? "").split(",").map((m) => m.trim().toUpperCase())
      .filter((m) => /^[A-Z]+$/.test(m));
    const paths = [...(cells[columns.path] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1])
      .filter((p) => p.startsWith("/"));
    for (const method of methods) {
      for (const path of paths) {
        const key = `${method} ${path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ method, path });
      }
    }
  }
  return out;
}

/** The cells of one table row, trimmed, with `\|` kept inside its cell. */
function splitRow(line: string): string[] {
  const inner = line.replace(/^\|/, "").replace(/\|$/, "");
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replaceAll("\\|", "|"));
}

/**
 * A route table's path template in the contract's spelling: URLPattern groups `:name` (with an
 * optional `(regex)` and modifier) become `{name}`, so `/:issuer/token` reads `/{issuer}/token`.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { contractPath } from "@svc/testing/route-docs";
 *
 * assert.equal(contractPath("/v1/todos/:id"), "/v1/todos/{id}");
 * assert.equal(contractPath("/:issuer([^/]+)/jwks"), "/{issuer}/jwks");
 * ```
 */
export function contractPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?[?*+]?/g, "{$1}");
}
