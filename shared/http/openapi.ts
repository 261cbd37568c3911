/**
 * Serves a service's OpenAPI document as `/openapi.json` and `/openapi.yaml`, and an interactive
 * `/docs` page (Swagger UI) whose assets come from the `swagger-ui-dist` npm package: nothing is
 * loaded from a CDN, so the page works offline and inside compiled binaries.
 *
 * @module
 */

import { createRouter, type Route, type RouteHandler } from "./route.ts";
import { localInfo } from "./handler.ts";

const ASSETS = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
} as const;

// The YAML form and Swagger UI's files load on their first request, by URL: not even `deno run`'s
// start reads them (openapi_assets.ts says why).
let assets: Promise<typeof import("./openapi_assets.ts")> | undefined;
function loadAssets(): Promise<typeof import("./openapi_assets.ts")> {
  assets ??= import(import.meta.resolve("./openapi_assets.ts")).catch((err) => {
    assets = undefined;
    throw err;
  });
  return assets;
}

function page(title: string): string {
  const esc = title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc}</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;
}

const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui",
  deepLinking: true, validatorUrl: null, tryItOutEnabled: true });
`;

/** Options of {@linkcode openapiRoutes}. */
export interface OpenapiRoutesOptions {
  /** Title of the `/docs` page. */
  title: string;
  /** OpenAPI operations of the served routes, by path (`/openapi.json`, `/docs`, …). */
  docs?: Readonly<Record<string, Record<string, unknown>>>;
}

/**
 * The route-table rows of `GET`/`HEAD` `/openapi.json`, `/openapi.yaml`, `/docs` and its assets,
 * and `/favicon.ico` (204, cacheable: the page has no icon, and browsers stop asking).
 * `doc` may be a function, called once on first use, so a document derived from the very table
 * these rows belong to can be passed in; it may return a promise (a builder loaded on first use).
 * A rejected build answers that request with an error and is tried again by the next one.
 *
 * @example Usage
 * ```ts
 * import { createRouter, localInfo } from "@svc/shared/http";
 * import { openapiRoutes } from "@svc/shared/openapi";
 * import assert from "node:assert/strict";
 *
 * const doc = { openapi: "3.0.3", info: { title: "t", version: "1" }, paths: {} };
 * const router = createRouter(openapiRoutes(doc, { title: "t" }));
 * const res = await router.handler(new Request("http://x/openapi.json"), localInfo());
 * assert.equal((await res.json()).openapi, "3.0.3");
 * ```
 */
export function openapiRoutes(
  doc: object | (() => object | Promise<object>),
  options: OpenapiRoutesOptions,
): Route[] {
  let resolved: Promise<object> | undefined;
  const documentOf = () =>
    resolved ??= typeof doc === "function"
      ? Promise.resolve((doc as () => object | Promise<object>)()).catch((err) => {
        resolved = undefined;
        throw err;
      })
      : Promise.resolve(doc);
  let json: string | undefined;
  let yaml: string | undefined;
  const cache = new Map<string, string>();
  async function asset(name: keyof typeof ASSETS): Promise<string> {
    let text = cache.get(name);
    if (text === undefined) {
      text = await (await loadAssets()).swaggerAsset(name);
      cache.set(name, text);
    }
    return text;
  }
  const docs = options.docs ?? {};
  const row = (pattern: string, handler: RouteHandler, doc = pattern): Route => ({
    method: READ,
    pattern,
    handler,
    ...(docs[doc] ? { openapi: docs[doc] } : {}),
  });
  return [
    row("/openapi.json", async () => {
      json ??= JSON.stringify(await documentOf());
      return new Response(json, { headers: { "content-type": "application/json" } });
    }),
    // yaml is loaded on first use: importing it costs tens of ms at every service start.
    row("/openapi.yaml", async () => {
      yaml ??= (await loadAssets()).toYaml(await documentOf());
      return new Response(yaml, { headers: { "content-type": "application/yaml" } });
    }),
    row("/docs", () => html(options.title)),
    // Browsers ask for it beside any HTML page; without it /docs logs a 404 in their console.
    {
      method: READ,
      pattern: "/favicon.ico",
      handler: () =>
        new Response(null, { status: 204, headers: { "cache-control": "public, max-age=86400" } }),
    },
    { method: READ, pattern: "/docs/", handler: () => html(options.title) },
    {
      method: READ,
      pattern: "/docs/init.js",
      label: "/docs/*",
      handler: () =>
        new Response(INIT, { headers: { "content-type": ASSETS["swagger-ui-bundle.js"] } }),
    },
    // One plain row per asset rather than one `/docs/:asset(…|…)` pattern: a regexp group needs
    // a `URLPattern`, which costs milliseconds at every start (the first one ≈ 7 ms).
    ...(Object.keys(ASSETS) as (keyof typeof ASSETS)[]).map((name): Route => ({
      method: READ,
      pattern: `/docs/${name}`,
      label: "/docs/*",
      handler: async () =>
        new Response(await asset(name), {
          headers: { "content-type": ASSETS[name], "cache-control": "public, max-age=86400" },
        }),
    })),
  ];
}

const READ = ["GET", "HEAD"] as const;

function html(title: string): Response {
  return new Response(page(title), { headers: { "content-type": "text/html; charset=utf-8" } });
}

/**
 * A handler for the OpenAPI and docs routes of {@linkcode openapiRoutes} that answers `undefined`
 * for any other path or method, for callers that chain handlers instead of using a route table.
 *
 * @example Usage
 * ```ts
 * import { openapiHandler } from "@svc/shared/openapi";
 * const docs = openapiHandler({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: {} }, {
 *   title: "t",
 * });
 * const res = await docs(new Request("http://x/openapi.json"));
 * ```
 */
export function openapiHandler(
  doc: object,
  options: { title: string },
): (req: Request) => Promise<Response> | undefined {
  const router = createRouter(openapiRoutes(doc, options));
  return function openapi(req) {
    const m = router.match(req);
    if (!m.handler) return undefined;
    return Promise.resolve(
      m.handler(req, { info: localInfo(), url: m.url, params: m.params, route: m.route }),
    );
  };
}
