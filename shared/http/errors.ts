import type { Handler } from "./handler.ts";
import type { Logger } from "../observe/log.ts";
import { errorResponse } from "./problem.ts";

/**
 * Catches anything a handler throws and answers with a problem response: the single place where
 * errors become `application/problem+json`.
 *
 * @example Usage
 * ```ts
 * import { withErrors } from "@svc/shared/http";
 * import { HttpError } from "@svc/shared/problem";
 * const handler = withErrors(() => { throw new HttpError(404, "not_found"); }, {});
 * ```
 */
export function withErrors(
  handler: Handler,
  options: {
    logger?: Logger;
    /** Renders the error instead (a service that decorates problem bodies). */
    render?: (req: Request, err: unknown) => Response | Promise<Response>;
  } = {},
): Handler {
  const render = options.render ??
    ((req: Request, err: unknown) =>
      errorResponse(err, { logger: options.logger, instance: new URL(req.url).pathname }));
  return async function errors(req, info) {
    try {
      return await handler(req, info);
    } catch (err) {
      return await render(req, err);
    }
  };
}
