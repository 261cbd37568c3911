/**
 * The one way a URL of the Actions service or of the message queue is made. Both bases come from
 * GitHub's answers (`runner-registration`'s `url`, a session's `messageQueueUrl`) and sit on hosts
 * GitHub chooses (`broker.actions.githubusercontent.com`, `pipelines.actions.githubusercontent.com`,
 * the GHES host…), so the host is not pinned to the configured one. What is bounded:
 *
 * - a base is `https:` with no user information: a token handed out with a URL only ever travels
 *   over TLS to the host named with it (a redirect elsewhere loses `Authorization`: `fetch` drops
 *   it on a cross-origin redirect);
 * - values taken from answers (scale set, session, runner and message ids) go in as whole path
 *   segments of `[A-Za-z0-9._~-]` or non-negative safe integers: none adds, removes (`..`) or
 *   escapes (`%2F`) a segment, or starts a query.
 *
 * The path is appended to the base path (Go's `url.JoinPath`), never resolved against it, so
 * `/tenant/…` or `/rest/` survives.
 *
 * @module
 */
import { ActionsError } from "./errors.ts";

/** One path segment: a literal, or an id from an answer. */
export type PathSegment = string | number;

/** Options of {@linkcode serviceUrl}. */
export interface ServiceUrlOptions {
  /** What the call does, for the error ("get a message"). */
  what: string;
  /** Appended to the base path; a final `""` keeps a trailing `/`. @default {[]} */
  segments?: readonly PathSegment[];
  /** Set on the URL's query (after the base's own parameters). @default {{}} */
  query?: Record<string, string>;
  /** Adds `api-version=6.0-preview` unless present (admin calls; not the queue). @default {false} */
  apiVersion?: boolean;
}

/** Longest string segment accepted. */
export const MAX_SEGMENT_LENGTH = 128;

const SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

function segmentText(segment: PathSegment, last: boolean): string | undefined {
  if (typeof segment === "number") {
    return Number.isSafeInteger(segment) && segment >= 0 ? String(segment) : undefined;
  }
  if (typeof segment !== "string") return undefined;
  if (segment === "") return last ? "" : undefined;
  return segment.length <= MAX_SEGMENT_LENGTH && SEGMENT.test(segment) ? segment : undefined;
}

/**
 * The URL of `segments` below the service base `base`.
 *
 * @example Usage
 * ```ts
 * import { serviceUrl } from "./service_url.ts";
 * serviceUrl("https://broker.example/rest/", {
 *   what: "get a runner",
 *   segments: ["_apis", "distributedtask", "pools", 0, "agents", 7],
 *   apiVersion: true,
 * });
 * // "https://broker.example/rest/_apis/distributedtask/pools/0/agents/7?api-version=6.0-preview"
 * ```
 * @throws {ActionsError} `bad_response` when the base is not an https URL without user
 * information, or a segment is not a plain id (neither is echoed).
 */
export function serviceUrl(base: string, options: ServiceUrlOptions): string {
  const { what, segments = [], query = {}, apiVersion = false } = options;
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw badResponse(what, "the service URL is not a URL");
  }
  if (u.protocol !== "https:" || u.username !== "" || u.password !== "" || u.hash !== "") {
    throw badResponse(what, "the service URL is not https without credentials");
  }
  const parts: string[] = [];
  for (const [i, segment] of segments.entries()) {
    const text = segmentText(segment, i === segments.length - 1);
    if (text === undefined) throw badResponse(what, "a path value is not a plain id");
    parts.push(text);
  }
  if (parts.length > 0) u.pathname = u.pathname.replace(/\/+$/, "") + "/" + parts.join("/");
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  if (apiVersion && !u.searchParams.has("api-version")) {
    u.searchParams.set("api-version", "6.0-preview");
  }
  return u.toString();
}

function badResponse(what: string, why: string): ActionsError {
  return new ActionsError("bad_response", `Cannot ${what}: ${why}`);
}
