/**
 * `/static/*` from the JSON config's `staticAssetsPath` (its row is in `routes.ts`). Only regular
 * files whose real path is inside the real root are served: traversal, symlinks leading out and
 * directories (there is no index) all answer 404.
 *
 * `serving/` holds what serves the process rather than the protocol: listeners, static files,
 * mock-oidc's own metrics.
 * @module
 */
import { errorResponse, HttpError } from "@svc/shared/problem";

const CONTENT_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  gif: "image/gif",
  html: "text/html; charset=utf-8",
  ico: "image/x-icon",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  js: "text/javascript; charset=utf-8",
  json: "application/json",
  png: "image/png",
  svg: "image/svg+xml",
  txt: "text/plain; charset=utf-8",
  webp: "image/webp",
  woff2: "font/woff2",
};

const STATIC_PREFIX = "/static/";

function contentTypeOf(path: string): string {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  return CONTENT_TYPES[ext] ?? "application/octet-stream";
}

function notFound(): Response {
  return errorResponse(new HttpError(404, "not_found", "no such static file"), {});
}

/** Resolves the file a `/static/...` path names, or undefined when it must not be served. */
async function resolveStaticFile(root: string, path: string): Promise<string | undefined> {
  let relative: string;
  try {
    relative = decodeURIComponent(path.slice(STATIC_PREFIX.length));
  } catch {
    return undefined;
  }
  const segments = relative.split(/[\\/]/);
  if (segments.some((s) => s === ".." || s === "." || s.includes("\0")) || relative === "") {
    return undefined;
  }
  try {
    const realRoot = await Deno.realPath(root);
    const realFile = await Deno.realPath(`${realRoot}/${segments.join("/")}`);
    if (!realFile.startsWith(realRoot.endsWith("/") ? realRoot : `${realRoot}/`)) return undefined;
    const stat = await Deno.stat(realFile);
    return stat.isFile ? realFile : undefined;
  } catch {
    return undefined;
  }
}

/** Serves GET/HEAD `/static/*` from `root`. */
export function createStaticHandler(root: string): (req: Request) => Promise<Response> {
  return async function serveStatic(req) {
    if (req.method !== "GET" && req.method !== "HEAD") {
      return errorResponse(
        new HttpError(405, "method_not_allowed", "static files are read-only", {
          headers: { allow: "GET, HEAD" },
        }),
        {},
      );
    }
    const file = await resolveStaticFile(root, new URL(req.url).pathname);
    if (!file) return notFound();
    const handle = await Deno.open(file, { read: true });
    const { size } = await handle.stat();
    const headers = { "content-type": contentTypeOf(file), "content-length": String(size) };
    if (req.method === "HEAD") {
      handle.close();
      return new Response(null, { headers });
    }
    return new Response(handle.readable, { headers });
  };
}
