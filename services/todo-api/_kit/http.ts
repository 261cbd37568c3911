// TEMPORARY stand-in for @svc/shared/http (same API) until the kit lands on main.
import { HttpError } from "./problem.ts";
export type Handler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;
export async function readBody(req: Request, options: { limit: number }): Promise<Uint8Array> {
  const length = Number(req.headers.get("content-length") ?? "0");
  if (length > options.limit) {
    throw new HttpError(413, "body_too_large", "request body is too large");
  }
  const buf = new Uint8Array(await req.arrayBuffer());
  if (buf.length > options.limit) {
    throw new HttpError(413, "body_too_large", "request body is too large");
  }
  return buf;
}
export function withRequestId(handler: Handler, _options: { header?: string } = {}): Handler {
  return async (req, info) => {
    const given = req.headers.get("x-request-id");
    const id = given && /^[A-Za-z0-9._-]{1,128}$/.test(given) ? given : crypto.randomUUID();
    const res = await handler(req, info);
    res.headers.set("x-request-id", id);
    return res;
  };
}
