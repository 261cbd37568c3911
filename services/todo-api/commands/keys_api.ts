/**
 * `keys …` through a running server's `/v1/keys` API, for when the database is held by `serve`
 * (embedded PGlite allows one process) or is out of reach: with `--url URL` and an admin key
 * (`--api-key`, `TODOAPI_API_KEY`) the command performs the call itself; without `--url`, when
 * the embedded database is locked, {@linkcode lockedAdvice} prints the exact `curl` call that does
 * the same. Output matches the database path: the key alone on stdout for `create`, the same table
 * for `list`, `revoked <id>` for `revoke`.
 * @module
 */
import type { ApiKeyRecord } from "../auth/api_keys.ts";
import type { Settings } from "../settings.ts";
import type { CliIo } from "./io.ts";
import { printKeys } from "./keys.ts";

/** One call of the keys API. */
export interface KeysCall {
  method: "GET" | "POST";
  /** Path and query under the base URL. */
  path: string;
  /** JSON body, when the call has one. */
  body?: Record<string, unknown>;
}

/** The API call a keys command line stands for, or a usage error. */
export function keysCallOf(args: string[], settings: Settings): KeysCall | { usage: string } {
  switch (args[0]) {
    case "create": {
      if (settings.subject === "" || settings.roles.length === 0) {
        return { usage: "usage: keys create --subject S --role user|admin [--expires-at T]" };
      }
      const body: Record<string, unknown> = { subject: settings.subject, roles: settings.roles };
      if (settings.expiresAt !== "") body.expiresAt = settings.expiresAt;
      return { method: "POST", path: "/v1/keys", body };
    }
    case "list":
      return { method: "GET", path: "/v1/keys?limit=100" };
    case "revoke":
      if (!args[1]) return { usage: "usage: keys revoke <id>" };
      return { method: "POST", path: `/v1/keys/${encodeURIComponent(args[1])}/revoke` };
    default:
      return { usage: "usage: keys create --subject S --role R | keys list | keys revoke <id>" };
  }
}

/** A word quoted for POSIX `sh`: single quotes, each inner `'` written `'\''`. */
export function shQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The base URL a local client reaches a server listening on `addr` (`:8080` → localhost). */
export function baseUrlOf(addr: string): string {
  const at = addr.lastIndexOf(":");
  const host = addr.slice(0, at).replace(/^\[|\]$/g, "");
  const port = addr.slice(at + 1);
  const local = host === "" || host === "0.0.0.0" || host === "::";
  const shown = local ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** The `curl` command line of a call; the admin key is read from `$TODOAPI_API_KEY`. */
export function curlOf(call: KeysCall, baseUrl: string): string {
  const words = ["curl", "-sS", "-w", "'\\n'", "-X", call.method];
  words.push("-H", '"X-API-Key: $TODOAPI_API_KEY"');
  if (call.body) {
    words.push("-H", shQuote("Content-Type: application/json"));
    words.push("-d", shQuote(JSON.stringify(call.body)));
  }
  words.push(shQuote(`${baseUrl.replace(/\/+$/, "")}${call.path}`));
  return words.join(" ");
}

/**
 * What to print when the embedded database is held by a server: the API call that does it, at
 * `serverUrl` (where the server said it answers, in the lock file) or else at `--addr`.
 */
export function lockedAdvice(
  args: string[],
  settings: Settings,
  serverUrl?: string,
): string | undefined {
  const call = keysCallOf(args, settings);
  if ("usage" in call) return undefined;
  const base = serverUrl ?? baseUrlOf(settings.addr);
  return [
    "While the server runs, do the same through its API with an admin key in TODOAPI_API_KEY:",
    `  ${curlOf(call, base)}`,
    `or run this command again with --url ${base} (the key in TODOAPI_API_KEY or --api-key).`,
  ].join("\n");
}

interface Problem {
  status?: number;
  detail?: string;
  errors?: { location?: string; message?: string }[];
}

function problemText(status: number, body: unknown): string {
  const p = (body ?? {}) as Problem;
  const details = (p.errors ?? []).map((e) => `${e.location ?? ""}: ${e.message ?? ""}`);
  return [`${status} ${p.detail ?? ""}`.trim(), ...details].join("; ");
}

/** Options of {@linkcode keysOverApi}. */
export interface KeysOverApiOptions {
  settings: Settings;
  io: CliIo;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** Runs a keys subcommand through the server at `settings.url`; returns the exit code. */
export async function keysOverApi(args: string[], options: KeysOverApiOptions): Promise<number> {
  const { settings, io } = options;
  const fetcher = options.fetch ?? fetch;
  const call = keysCallOf(args, settings);
  if ("usage" in call) {
    io.err(call.usage);
    return 2;
  }
  if (settings.apiKey === "") {
    io.err(`keys ${args[0]}: --url needs an admin key: set TODOAPI_API_KEY (or --api-key)`);
    return 2;
  }
  let base: URL;
  try {
    base = new URL(settings.url);
    if (base.protocol !== "http:" && base.protocol !== "https:") throw new TypeError();
  } catch {
    io.err(`keys ${args[0]}: --url must be an http(s) URL such as http://localhost:8080`);
    return 2;
  }
  const root = base.href.replace(/\/+$/, "");
  async function send(path: string, body?: Record<string, unknown>) {
    const headers: Record<string, string> = { "x-api-key": settings.apiKey };
    if (body) headers["content-type"] = "application/json";
    const res = await fetcher(`${root}${path}`, {
      method: body || path.endsWith("/revoke") ? "POST" : "GET",
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json().catch(() => undefined);
    return { status: res.status, ok: res.ok, json };
  }
  try {
    if (args[0] === "list") {
      const records: (ApiKeyRecord & { status?: string })[] = [];
      let path: string | undefined = call.path;
      while (path) {
        const res = await send(path);
        if (!res.ok) {
          io.err(`keys list: ${problemText(res.status, res.json)}`);
          return 1;
        }
        records.push(...res.json.keys);
        path = res.json.nextCursor
          ? `/v1/keys?limit=100&cursor=${encodeURIComponent(res.json.nextCursor)}`
          : undefined;
      }
      printKeys(records, io, Date.now());
      return 0;
    }
    const res = await send(call.path, call.body);
    if (res.status === 404 && args[0] === "revoke") {
      io.err(`keys revoke: no key with id ${args[1]}`);
      return 1;
    }
    if (!res.ok) {
      io.err(`keys ${args[0]}: ${problemText(res.status, res.json)}`);
      return 1;
    }
    if (args[0] === "create") {
      io.out(res.json.key);
      io.err(
        `created key ${res.json.id} for ${res.json.subject} (${res.json.roles.join(",")}); ` +
          "it is shown only now: store it safely",
      );
    } else io.out(`revoked ${args[1]}`);
    return 0;
  } catch (err) {
    io.err(`keys ${args[0]}: cannot reach ${root}: ${err instanceof Error ? err.message : err}`);
    return 1;
  }
}
