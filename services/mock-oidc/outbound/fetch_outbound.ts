/**
 * The one way mock-oidc opens a connection a request chose: {@linkcode fetchOutbound}, URL in,
 * bounded bytes out. Today it fetches client ID metadata documents; whatever else a caller's
 * input makes the provider fetch (a client's `jwks_uri`, say) must come through here too.
 *
 * The URL must be `https` (plain `http` only to a loopback host, and only with
 * `allowHttpLoopback`), written as the URL parser serialises it, without credentials, fragment
 * or dot segments in any spelling. Its host must be, or resolve only to, loopback or public
 * addresses ({@linkcode addressKind}) unless `allowPrivateNetworks`. The fetch follows no
 * redirect, takes at most `timeoutMs` (name resolution included) and reads at most `maxBytes`.
 * The policy is the `--client-metadata-allow-*` settings, which the error texts name.
 *
 * @module
 */

import { addressKind } from "./address_ranges.ts";

/** Who may be reached. */
export interface OutboundPolicy {
  /** Plain `http` to a loopback host (`deno task dev` turns it on). @default false */
  allowHttpLoopback?: boolean;
  /** Private, link-local and other special-purpose addresses besides loopback. @default false */
  allowPrivateNetworks?: boolean;
}

/** Options of {@linkcode fetchOutbound}. */
export interface FetchOutboundOptions extends OutboundPolicy {
  /** Largest body read, bytes. */
  maxBytes: number;
  /** What is fetched, as error texts name it. @default "the resource" */
  what?: string;
  /** A rule of the caller's own on the parsed URL, run before any lookup: why it is refused. */
  rule?: (url: URL) => string | undefined;
  /** @default "application/json" */
  accept?: string;
  /** Time the whole fetch may take, name resolution included, ms. @default 5000 */
  timeoutMs?: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Host name → addresses. @default Deno.resolveDns, A and AAAA */
  resolve?: (host: string, signal: AbortSignal) => Promise<string[]>;
}

/** What a fetch brought back: the body (at most `maxBytes`) and the response headers. */
export interface FetchedBytes {
  bytes: Uint8Array;
  headers: Headers;
}

/** Why a URL was not fetched, or its answer not taken; the message is for the caller. */
export class OutboundRefused extends Error {
  /** Stable code callers switch on. */
  readonly code = "outbound_refused";
  constructor(message: string) {
    super(message);
    this.name = "OutboundRefused";
  }
}

const FETCH_TIMEOUT_MS = 5_000;

/** Host names taken as loopback without a lookup (the fetch resolves them on its own). */
const LOOPBACK_NAMES = new Set(["localhost"]);

/**
 * Fetch `url` within the policy and the bounds; status 200 only.
 *
 * @throws {OutboundRefused} the URL breaks a rule, or the fetch fails or exceeds a bound
 */
export async function fetchOutbound(
  url: string,
  options: FetchOutboundOptions,
): Promise<FetchedBytes> {
  const { timeoutMs = FETCH_TIMEOUT_MS, maxBytes, what = "the resource" } = options;
  const signal = AbortSignal.timeout(timeoutMs);
  const late = `${what} did not arrive within ${timeoutMs}ms`;
  const target = await checkUrl(url, options, signal, late);
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(target, {
      redirect: "manual",
      signal,
      headers: { accept: options.accept ?? "application/json" },
    });
  } catch (err) {
    throw new OutboundRefused(
      signal.aborted ? late : `${what} cannot be fetched (${(err as Error).name})`,
    );
  }
  try {
    if (res.status >= 300 && res.status < 400) {
      throw new OutboundRefused(`${what} answered ${res.status}; redirects are not followed`);
    }
    if (res.status !== 200) throw new OutboundRefused(`${what} answered ${res.status}`);
    const bytes = await readBounded(res, maxBytes, `${what} is larger than ${maxBytes} bytes`, {
      signal,
      late,
      broken: `${what} could not be read`,
    });
    return { bytes, headers: res.headers };
  } finally {
    await res.body?.cancel().catch(() => {});
  }
}

/** Whether a path has a `.` or `..` segment in any spelling (`%2e`, `.%2E`, …). */
function hasDotSegment(raw: string): boolean {
  const path = raw.replace(/^[a-z][a-z0-9+.-]*:[/\\]{2}[^/\\?#]*/i, "").split(/[?#]/, 1)[0];
  return path.split(/[/\\]/).some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}

async function checkUrl(
  raw: string,
  options: FetchOutboundOptions,
  signal: AbortSignal,
  late: string,
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused("it is not a valid URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new OutboundRefused("the URL must use https");
  }
  if (url.username || url.password) {
    throw new OutboundRefused("the URL must not carry credentials");
  }
  if (raw.includes("#")) throw new OutboundRefused("the URL must not have a fragment");
  if (hasDotSegment(raw)) {
    throw new OutboundRefused("the URL must have a path without . or .. segments");
  }
  // What is fetched is what the parser made of the text; only text that is already that form
  // names the resource fetched (no aliases: 127.1, %2e%2e, upper case, default ports, …).
  if (url.href !== raw) {
    throw new OutboundRefused(`the URL is not in normalised form: it parses as ${url.href}`);
  }
  const own = options.rule?.(url);
  if (own !== undefined) throw new OutboundRefused(own);
  const host = url.hostname;
  const loopback = LOOPBACK_NAMES.has(host) || addressKind(host) === "loopback";
  if (url.protocol === "http:") {
    if (!loopback) throw new OutboundRefused("the URL must use https");
    if (!options.allowHttpLoopback) {
      throw new OutboundRefused(
        "plain http is accepted for loopback hosts only with --client-metadata-allow-http-loopback",
      );
    }
  }
  if (loopback || options.allowPrivateNetworks) return url;
  const literal = host.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(host);
  let addresses = [host];
  if (!literal) {
    try {
      addresses = await (options.resolve ?? resolveDns)(host, signal);
    } catch {
      addresses = [];
    }
    if (signal.aborted) throw new OutboundRefused(late);
    if (addresses.length === 0) throw new OutboundRefused(`${host} does not resolve`);
  }
  const refused = addresses.find((a) => addressKind(a) === "special");
  if (refused !== undefined) {
    throw new OutboundRefused(
      `${host} is a private or reserved address (${refused}); ` +
        "--client-metadata-allow-private-networks allows it",
    );
  }
  return url;
}

async function resolveDns(host: string, signal: AbortSignal): Promise<string[]> {
  const found = await Promise.allSettled([
    Deno.resolveDns(host, "A", { signal }),
    Deno.resolveDns(host, "AAAA", { signal }),
  ]);
  return found.flatMap((r) => r.status === "fulfilled" ? r.value : []);
}

async function readBounded(
  res: Response,
  maxBytes: number,
  tooLarge: string,
  failure: { signal: AbortSignal; late: string; broken: string },
): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) throw new OutboundRefused(tooLarge);
  if (res.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes) throw new OutboundRefused(tooLarge);
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof OutboundRefused) throw err;
    throw new OutboundRefused(failure.signal.aborted ? failure.late : failure.broken);
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
