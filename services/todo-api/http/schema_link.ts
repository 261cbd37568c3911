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
 * The body's opening `{"$schema":"…"` for a schema and a client: made once per schema, scheme and
 * host (the host is the client's: at most {@linkcode HEADS_MAX} are kept, the rest made each time).
 * Looked up by host, then by name (the service's own literals), so no key is joined per response.
 */
function schemaHead(req: Request, name: string): string {
  const host = requestHost(req);
  const tls = req.url.startsWith("https:"); // no URL parse: this runs for every response
  const hosts = tls ? tlsHeads : plainHeads;
  let byName = hosts.get(host);
  let head = byName?.get(name);
  if (head === undefined) {
    head = `{"$schema":${JSON.stringify(schemaUrl(host, tls, name))}`;
    if (headCount < HEADS_MAX) {
      if (byName === undefined) hosts.set(host, byName = new Map());
      byName.set(name, head);
      headCount++;
    }
  }
  return head;
}
const plainHeads = new Map<string, Map<string, string>>();
const tlsHeads = new Map<string, Map<string, string>>();
let headCount = 0;
const HEADS_MAX = 256;

/** A JSON response whose body starts with `$schema` and which carries the `Link` header. */
export function schemaJson(
  req: Request,
  name: string,
  body: Record<string, unknown>,
  init: { status?: number; headers?: HeadersInit; contentType?: string } = {},
): Response {
  // `$schema` goes first without copying the body (this runs for every response).
  const json = JSON.stringify("$schema" in body ? { ...body, $schema: undefined } : body);
  const head = schemaHead(req, name);
  const res = new Response(json === "{}" ? `${head}}` : `${head},${json.slice(1)}`, {
    status: init.status ?? 200,
  });
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
