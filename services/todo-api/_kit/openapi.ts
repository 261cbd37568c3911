// TEMPORARY stand-in for @svc/shared/openapi (same API) until the kit lands on main.
import { stringify } from "yaml";
export function openapiHandler(
  doc: object,
  options: { title: string },
): (req: Request) => Response | undefined {
  const json = JSON.stringify(doc);
  const yaml = stringify(doc);
  return (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/openapi.json") {
      return new Response(json, { headers: { "content-type": "application/openapi+json" } });
    }
    if (path === "/openapi.yaml") {
      return new Response(yaml, { headers: { "content-type": "application/openapi+yaml" } });
    }
    if (path === "/docs") {
      return new Response(`<!doctype html><title>${options.title}</title>`, {
        headers: { "content-type": "text/html" },
      });
    }
    return undefined;
  };
}
