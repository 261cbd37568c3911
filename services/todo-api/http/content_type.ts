/**
 * The request-body media type rule of every JSON-taking route: `application/json` (or a
 * `+json` type) with no charset or `charset=utf-8` (case-insensitive, quoted or not). A missing
 * `Content-Type` and an empty one are the same thing, and both are 415, as is any other charset:
 * the body is read as UTF-8, so a UTF-16 body must not be parsed as if it were.
 * @module
 */
import { HttpError } from "@svc/shared/problem";

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA = /^\s*application\/(?:[!#$%&'*.^_`|~0-9A-Za-z-]*\+)?json\s*/i;
const PARAM = new RegExp(`^;\\s*(${TOKEN})\\s*=\\s*(${TOKEN}|"(?:[^"\\\\]|\\\\.)*")\\s*`);

function unsupported(detail: string): HttpError {
  return new HttpError(415, "unsupported_media_type", detail);
}

/** Why `value` (a `Content-Type` header, or null) is not acceptable, or undefined. */
export function jsonContentTypeProblem(value: string | null): string | undefined {
  if (value === "application/json") return undefined; // what nearly every client sends
  if (value === null || value.trim() === "") return "expected Content-Type: application/json";
  const media = MEDIA.exec(value);
  if (!media) return "expected application/json";
  let rest = value.slice(media[0].length);
  while (rest !== "") {
    const param = PARAM.exec(rest);
    if (!param) return "expected application/json with well-formed parameters";
    if (param[1].toLowerCase() === "charset") {
      const raw = param[2].startsWith('"')
        ? param[2].slice(1, -1).replace(/\\(.)/g, "$1")
        : param[2];
      if (raw.toLowerCase() !== "utf-8") return "expected application/json in charset utf-8";
    }
    rest = rest.slice(param[0].length);
  }
  return undefined;
}

/** Throws 415 unless the request's `Content-Type` is JSON in UTF-8. */
export function requireJson(req: Request): void {
  const problem = jsonContentTypeProblem(req.headers.get("content-type"));
  if (problem) throw unsupported(problem);
}
