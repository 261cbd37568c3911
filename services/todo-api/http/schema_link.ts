/**
 * Huma's `$schema` convention: every JSON object body names its schema, as an absolute URL in the
 * body's first property `$schema` and as a relative `Link: </schemas/X.json>; rel="describedBy"`
 * header. Scheme and host follow Huma: host from X-Forwarded-Host, then Forwarded host=, then
 * Host; `http://` only for localhost/127.0.0.1 without TLS, otherwise `https://`.
 * @module
 */

/** Where schemas are served. */
export const SCHEMAS_PATH = "/schemas";

function requestHost(req: Request): string {
  const forwardedHost = req.headers.get("x-forwarded-host");
  if (forwardedHost) return forwardedHost.split(",")[0].trim();
  const forwarded = req.headers.get("forwarded");
  const match = forwarded ? /(?:^|[;,\s])host="?([^";,]+)"?/i.exec(forwarded) : null;
  if (match) return match[1];
  return req.headers.get("host") ?? new URL(req.url).host;
}

/** Absolute URL of a named schema as seen by a client that reached `host` (over TLS or not). */
function schemaUrl(host: string, tls: boolean, name: string): string {
  const plain = !tls && (host.startsWith("localhost") || host.startsWith("127.0.0.1"));
  return `${plain ? "http" : "https"}://${host}${SCHEMAS_PATH}/${name}.json`;
}

/** The `Link` header value for a named schema (names are the service's own: a few). */
function describedBy(name: string): string {
  let link = links.get(name);
  if (link === undefined) {
    links.set(name, link = `<${SCHEMAS_PATH}/${name}.json>; rel="describedBy"`);
  }
  return link;
}
const links = new Map<string, string>();

/**
 * The absolute `$schema` URL for a schema and a client: made once per schema, scheme and host
 * (the host is the client's: at most {@linkcode URLS_MAX} are kept, the rest made each time).
 * Looked up by host, then by name (the service's own literals), so no key is joined per response.
 */
function schemaId(req: Request, name: string): string {
  const host = requestHost(req);
  const tls = req.url.startsWith("https:"); // no URL parse: this runs for every response
  const hosts = tls ? tlsUrls : plainUrls;
  let byName = hosts.get(host);
  let url = byName?.get(name);
  if (url === undefined) {
    url = schemaUrl(host, tls, name);
    if (urlCount < URLS_MAX) {
      if (byName === undefined) hosts.set(host, byName = new Map());
      byName.set(name, url);
      urlCount++;
    }
  }
  return url;
}
const plainUrls = new Map<string, Map<string, string>>();
const tlsUrls = new Map<string, Map<string, string>>();
let urlCount = 0;
const URLS_MAX = 256;

/**
 * A JSON response whose body starts with `$schema` and which carries the `Link` header. `body` is
 * one of the service's schema objects: its keys are names (an array-index key such as `"1"` would
 * be written before `$schema`, as JavaScript orders such keys first).
 */
export function schemaJson(
  req: Request,
  name: string,
  body: Record<string, unknown>,
  init: { status?: number; headers?: HeadersInit; contentType?: string } = {},
): Response {
  // `$schema` first in a shallow copy, which `JSON.stringify` writes as the body in one string:
  // the body written alone and joined after a head made a second string of the whole body, and
  // the join a third once flattened (this runs for every response).
  const $schema = schemaId(req, name);
  const out = { $schema, ...body };
  if (out.$schema !== $schema) out.$schema = $schema; // a body's own `$schema` is replaced
  const res = new Response(JSON.stringify(out), { status: init.status ?? 200 });
  // Headers set one by one on the response: a third of the cost of passing them to its
  // constructor, which converts the whole init first.
  const headers = res.headers;
  const extra = init.headers;
  if (extra instanceof Headers) extra.forEach((value, key) => headers.append(key, value));
  else if (Array.isArray(extra)) { for (const [key, value] of extra) headers.append(key, value); }
  else if (extra) {
    const record = extra as Record<string, string>;
    for (const key in record) if (Object.hasOwn(record, key)) headers.append(key, record[key]);
  }
  headers.set("content-type", init.contentType ?? "application/json");
  headers.append("link", describedBy(name));
  return res;
}
