/**
 * Before the todo-api benchmark measures its peer (`peer_server.ts`), this makes sure the peer
 * answers the benchmark's requests as todo-api does: the same requests to both, on the same
 * database with the same key, compared by status, the headers a client reads, and the JSON body
 * (the same properties in the same order with the same types; a first page, its `nextCursor`
 * included, equal value for value, since both sign with the key in `server_secrets`). Also the
 * two error answers nearest the measured path: no key (401) and an empty title (422).
 */

/** One request, sent alike to both servers. */
interface Probe {
  name: string;
  method: "GET" | "POST";
  /** `{cursor}` stands for the `nextCursor` todo-api answered last. */
  path: string;
  body?: string;
  /** Send the API key. @default true */
  keyed?: boolean;
  /** The body must be equal value for value (else: the same shape). */
  equal?: boolean;
}

const PROBES: Probe[] = [
  { name: "create", method: "POST", path: "/v1/todos", body: '{"title":"benchmark todo"}' },
  { name: "create, second row", method: "POST", path: "/v1/todos", body: '{"title":"second"}' },
  { name: "first page", method: "GET", path: "/v1/todos?limit=20", equal: true },
  {
    name: "first page of one, with nextCursor",
    method: "GET",
    path: "/v1/todos?limit=1",
    equal: true,
  },
  {
    name: "second page, by that cursor",
    method: "GET",
    path: "/v1/todos?limit=1&cursor={cursor}",
    equal: true,
  },
  { name: "forged cursor", method: "GET", path: "/v1/todos?cursor={cursor}x" },
  { name: "no key", method: "GET", path: "/v1/todos", keyed: false, equal: true },
  { name: "empty title", method: "POST", path: "/v1/todos", body: '{"title":""}' },
];

/** Headers a client reads, compared by value (`location` and `x-request-id` by form). */
const SAME_VALUE = ["content-type", "link", "www-authenticate"];
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const FORMS: Record<string, RegExp> = {
  location: new RegExp(`^/v1/todos/${UUID}$`),
  "x-request-id": new RegExp(`^${UUID}$`),
};

/** A JSON value's shape: property names in order and value types, arrays element by element. */
function shape(value: unknown): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, shape(v)]);
  }
  return typeof value;
}

async function ask(base: string, path: string, probe: Probe, key: string) {
  const headers: Record<string, string> = {};
  if (probe.keyed !== false) headers["x-api-key"] = key;
  if (probe.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(base + path, { method: probe.method, headers, body: probe.body });
  const text = await res.text();
  const body = JSON.parse(text);
  // `$schema` names the server it came from: compared without the origin
  if (typeof body.$schema === "string") body.$schema = new URL(body.$schema).pathname;
  return { status: res.status, headers: res.headers, body };
}

/**
 * Sends every probe to todo-api at `apiUrl` and the peer at `peerUrl` (todo-api first) and
 * returns what differs, one line each; empty when the peer answers as todo-api does.
 */
export async function peerMismatches(
  apiUrl: string,
  peerUrl: string,
  key: string,
): Promise<string[]> {
  const found: string[] = [];
  let cursor = "";
  for (const probe of PROBES) {
    const path = probe.path.replace("{cursor}", encodeURIComponent(cursor));
    const api = await ask(apiUrl, path, probe, key);
    const peer = await ask(peerUrl, path, probe, key);
    if (typeof api.body.nextCursor === "string") cursor = api.body.nextCursor;
    const at = `${probe.name} (${probe.method} ${probe.path})`;
    if (api.status !== peer.status) {
      found.push(`${at}: status ${peer.status}, todo-api ${api.status}`);
    }
    for (const name of SAME_VALUE) {
      const [a, p] = [api.headers.get(name), peer.headers.get(name)];
      if (a !== p) found.push(`${at}: ${name} ${JSON.stringify(p)}, todo-api ${JSON.stringify(a)}`);
    }
    for (const [name, form] of Object.entries(FORMS)) {
      const [a, p] = [api.headers.get(name), peer.headers.get(name)];
      if ((a === null) !== (p === null) || (p !== null && !form.test(p))) {
        found.push(`${at}: ${name} ${JSON.stringify(p)}, todo-api ${JSON.stringify(a)}`);
      }
    }
    const [a, p] = probe.equal
      ? [JSON.stringify(api.body), JSON.stringify(peer.body)]
      : [JSON.stringify(shape(api.body)), JSON.stringify(shape(peer.body))];
    if (a !== p) found.push(`${at}: body ${p}, todo-api ${a}`);
  }
  return found;
}
