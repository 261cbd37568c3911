import { createContextKey, getContext, setContext } from "./context.ts";
import type { Handler } from "./handler.ts";

const VALID = /^[A-Za-z0-9._-]{1,128}$/;
const REQUEST_ID = createContextKey<string>("requestId");

/**
 * Gives every request an id: the client's `X-Request-ID` when it is 1–128 characters of
 * `A-Z a-z 0-9 . _ -`, otherwise a generated UUID. The id is echoed on the response and can be
 * read with {@linkcode requestIdOf}.
 *
 * @example Usage
 * ```ts
 * import { requestIdOf, withRequestId } from "@svc/shared/http";
 * const handler = withRequestId((req) => new Response(requestIdOf(req)));
 * ```
 */
export function withRequestId(
  handler: Handler,
  options: { header?: string; generate?: () => string } = {},
): Handler {
  const { header = "X-Request-ID", generate = randomId } = options;
  return async function requestId(req, info) {
    const id = assignRequestId(req, header, generate);
    return withIdHeader(await handler(req, info), header, id);
  };
}

function randomId(): string {
  return crypto.randomUUID();
}

/**
 * The request's id (the client's `header` when valid, else `generate()`), recorded for
 * {@linkcode requestIdOf}: the first half of {@linkcode withRequestId}, for the default stack.
 */
export function assignRequestId(
  req: Request,
  header = "X-Request-ID",
  generate: () => string = randomId,
): string {
  const given = req.headers.get(header);
  const id = given !== null && VALID.test(given) ? given : generate();
  setContext(req, REQUEST_ID, id);
  return id;
}

/** `res` with `header: id`: the second half of {@linkcode withRequestId}. */
export function withIdHeader(res: Response, header: string, id: string): Response {
  try {
    res.headers.set(header, id);
  } catch {
    // Immutable headers (e.g. a fetched Response passed through): copy once.
    const copy = new Response(res.body, res);
    copy.headers.set(header, id);
    return copy;
  }
  return res;
}

/** The id {@linkcode withRequestId} assigned to this request, or "" outside of it. */
export function requestIdOf(req: Request): string {
  return getContext(req, REQUEST_ID) ?? "";
}
