/**
 * Serves a service's OpenAPI document as `/openapi.json` and `/openapi.yaml`, and an interactive
 * `/docs` page (Swagger UI) whose assets come from the `swagger-ui-dist` npm package: nothing is
 * loaded from a CDN, so the page works offline and inside compiled binaries.
 *
 * @module
 */

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

// Literal specifiers, loaded on first use: `deno compile` embeds them, startup does not pay for
// parsing 1.5 MB of JavaScript, and no file-system permission is needed.
function loadAsset(name: string): Promise<{ default: string }> {
  return name === "swagger-ui.css"
    ? import("swagger-ui-dist/swagger-ui.css", { with: { type: "text" } })
    : import("swagger-ui-dist/swagger-ui-bundle.js", { with: { type: "text" } });
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

/**
 * Returns a handler for the OpenAPI and docs routes; it answers `undefined` for any other path so
 * callers can chain it in front of their router.
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
  const json = JSON.stringify(doc);
  let yaml: string | undefined;
  const cache = new Map<string, string>();
  async function asset(name: string): Promise<string> {
    let text = cache.get(name);
    if (text === undefined) {
      text = (await loadAsset(name)).default;
      cache.set(name, text);
    }
    return text;
  }
  return function openapi(req) {
    if (req.method !== "GET" && req.method !== "HEAD") return undefined;
    const path = new URL(req.url).pathname;
    switch (path) {
      case "/openapi.json":
        return Promise.resolve(
          new Response(json, { headers: { "content-type": "application/json" } }),
        );
      case "/openapi.yaml":
        // yaml is loaded on first use: importing it costs tens of ms at every service start.
        return (async () => {
          yaml ??= (await import("yaml")).stringify(doc, { aliasDuplicateObjects: false });
          return new Response(yaml, { headers: { "content-type": "application/yaml" } });
        })();
      case "/docs":
      case "/docs/":
        return Promise.resolve(
          new Response(page(options.title), {
            headers: { "content-type": "text/html; charset=utf-8" },
          }),
        );
      case "/docs/init.js":
        return Promise.resolve(
          new Response(INIT, { headers: { "content-type": ASSETS["swagger-ui-bundle.js"] } }),
        );
    }
    const name = path.startsWith("/docs/") ? path.slice(6) : "";
    if (!(name in ASSETS)) return undefined;
    return asset(name).then((text) =>
      new Response(text, {
        headers: { "content-type": ASSETS[name], "cache-control": "public, max-age=86400" },
      })
    );
  };
}
