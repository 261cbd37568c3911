/**
 * Routing of the listeners: which handler answers a path on the API listener and on the
 * dedicated control listener. Pure routing; the wrappers (CORS, metrics, limits, tracing)
 * are applied around it in `app.ts`.
 * @module
 */
import { errorResponse, HttpError } from "@svc/shared/problem";
import { STATIC_PREFIX } from "./static_files.ts";
import type { Handler } from "@svc/shared/http";

type Maybe = (req: Request) => Response | undefined | Promise<Response | undefined>;

export interface ApiRouterOptions {
  /** The protocol namespace, already wrapped with capture when capture is on. */
  protocol: Handler;
  /** `/_mock/*` on this listener; when absent every `/_mock/*` path is a 404. */
  control?: (req: Request) => Promise<Response>;
  /** 404 for `/_mock/*` (control disabled or on its own listener). */
  controlMissing: (req: Request) => Response;
  /** `/static/*`; when absent the path falls through to the protocol router. */
  staticFiles?: (req: Request) => Promise<Response>;
  /** Operational routes; answers undefined for paths it does not own. */
  operational: Maybe;
}

function isControlPath(path: string): boolean {
  return path === "/_mock" || path.startsWith("/_mock/");
}

/** The API listener: operational routes, `/_mock`, `/static/*`, then the issuer namespaces. */
export function createApiRouter(options: ApiRouterOptions): Handler {
  return async function routeApi(req, info) {
    const path = new URL(req.url).pathname;
    const operational = await options.operational(req);
    if (operational) return operational;
    if (isControlPath(path)) {
      return options.control ? options.control(req) : options.controlMissing(req);
    }
    if (options.staticFiles && path.startsWith(STATIC_PREFIX)) return options.staticFiles(req);
    return options.protocol(req, info);
  };
}

/** The dedicated control listener: `/_mock/*` only. */
export function createControlRouter(
  control: (req: Request) => Promise<Response>,
): (req: Request) => Promise<Response> {
  return function routeControl(req) {
    if (isControlPath(new URL(req.url).pathname)) return control(req);
    return Promise.resolve(
      errorResponse(new HttpError(404, "not_found", "only /_mock/* is served here"), {}),
    );
  };
}
