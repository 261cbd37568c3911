import type { Handler } from "./handler.ts";
import { errorResponse, HttpError } from "./problem.ts";

/**
 * Answers 400 to a request whose URL cannot be parsed, before any handler sees it. Deno builds
 * `req.url` from the `Host` header as sent, so `Host: a:99999` (a port out of range), `Host: a b`
 * or `Host: [::1` reach the handler with a `req.url` on which `new URL()` throws: without this
 * wrapper every route would answer 500. The body is the kit's problem with code `invalid_host`,
 * unless `render` draws the error in the service's own shape.
 *
 * @example Usage
 * ```ts
 * import { localInfo, withValidTarget } from "@svc/shared/http";
 * const handler = withValidTarget(() => new Response("ok"));
 * const req = new Request("http://ok/");
 * Object.defineProperty(req, "url", { value: "http://a:99999/" }); // what Deno hands over
 * const res = await handler(req, localInfo());
 * if (res.status !== 400) throw new Error("an invalid Host must be a 400");
 * ```
 */
export function withValidTarget(
  handler: Handler,
  options: {
    /** Renders the 400 `invalid_host` error. @default the kit's problem response */
    render?: (req: Request, err: HttpError) => Response | Promise<Response>;
    /**
     * Whether the URL parses; a route table passes its own match (`() => router.match(req)`
     * inside a try), so the URL is parsed once for both. @default `URL.canParse(req.url)`
     */
    parses?: (req: Request) => boolean;
  } = {},
): Handler {
  const render = options.render ?? ((_req: Request, err: HttpError) => errorResponse(err));
  const parses = options.parses ?? ((req: Request) => URL.canParse(req.url));
  return function validTarget(req, info) {
    if (parses(req)) return handler(req, info);
    return render(
      req,
      new HttpError(
        400,
        "invalid_host",
        "Cannot route request: the Host header is not host[:port]",
      ),
    );
  };
}
