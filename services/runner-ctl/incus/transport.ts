// deno-lint-ignore-file camelcase -- Incus wire field names (status_code, created_at, …)
/**
 * HTTP to the local Incus daemon over its Unix socket, and its response envelope: sync (200,
 * `metadata`), async (202, an Operation), error (`error_code` + `error`). Every call of a project
 * scope carries `?project=`. The console log is raw bytes, not an envelope.
 *
 * @module
 */

/** The Incus socket when `incus.socket` is empty: `$INCUS_DIR/unix.socket` or the packaged path. */
export function defaultSocketPath(env: (k: string) => string | undefined): string {
  const dir = env("INCUS_DIR");
  return dir ? `${dir.replace(/\/+$/, "")}/unix.socket` : "/var/lib/incus/unix.socket";
}

/** A failed Incus call; `status` is the HTTP status or the envelope's `error_code`. */
export class IncusError extends Error {
  readonly status: number;
  constructor(status: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "IncusError";
    this.status = status;
  }
}

/** An Incus Operation (the fields the controller reads). */
export interface Operation {
  id: string;
  status: string;
  status_code: number;
  err: string;
  metadata?: Record<string, unknown> | null;
}

/** Options of one request. */
export interface IncusRequest {
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Transport options. */
export interface IncusTransportOptions {
  socket: string;
  project: string;
  /** Injected fetch (tests); default fetches over the socket. */
  fetch?: typeof fetch;
}

/** A client bound to one socket and project. */
export class IncusTransport {
  readonly project: string;
  readonly socket: string;
  #client: Deno.HttpClient | undefined;
  #fetch: typeof fetch;

  constructor(options: IncusTransportOptions) {
    this.project = options.project;
    this.socket = options.socket;
    if (options.fetch) this.#fetch = options.fetch;
    else {
      const client = Deno.createHttpClient({ proxy: { transport: "unix", path: options.socket } });
      this.#client = client;
      this.#fetch = (input, init) => fetch(input, { ...init, client });
    }
  }

  /** The URL of `path` (the host is ignored over a Unix socket). */
  url(path: string, query: Record<string, string> = {}, project = true): string {
    const u = new URL(`http://incus${path}`);
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    if (project) u.searchParams.set("project", this.project);
    return u.toString();
  }

  /** Sends a request and returns the raw response (console log, operation wait). */
  async raw(method: string, url: string, request: IncusRequest = {}): Promise<Response> {
    const headers: Record<string, string> = { ...request.headers };
    let body: BodyInit | undefined;
    if (typeof request.body === "string" || request.body instanceof Uint8Array) {
      body = request.body as BodyInit;
    } else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers["Content-Type"] = "application/json";
    }
    try {
      return await this.#fetch(url, { method, headers, body, signal: request.signal });
    } catch (err) {
      if (request.signal?.aborted) throw request.signal.reason;
      const why = (err as Error).message;
      throw new IncusError(0, `Cannot reach Incus at its socket ${this.socket}: ${why}`, {
        cause: err,
      });
    }
  }

  /** Parses an envelope; returns sync metadata or the async Operation. @throws {IncusError} */
  async envelope(what: string, res: Response): Promise<{ type: string; metadata: unknown }> {
    const text = await res.text();
    let env: Record<string, unknown>;
    try {
      env = JSON.parse(text);
    } catch {
      throw new IncusError(res.status, `Cannot ${what}: Incus answered HTTP ${res.status}`);
    }
    if (env.type === "error" || res.status >= 400) {
      const code = typeof env.error_code === "number" && env.error_code
        ? env.error_code
        : res.status;
      throw new IncusError(code, `Cannot ${what}: ${String(env.error ?? "error")}`);
    }
    return { type: String(env.type), metadata: env.metadata };
  }

  /** One call to a project-scoped path; resolves the sync metadata or the async Operation. */
  async call(
    what: string,
    method: string,
    path: string,
    request: IncusRequest = {},
  ): Promise<{ type: string; metadata: unknown }> {
    const project = !path.startsWith("/1.0/operations") && !path.startsWith("/1.0/projects") &&
      path !== "/1.0";
    return await this.envelope(
      what,
      await this.raw(method, this.url(path, request.query, project), request),
    );
  }

  /** Closes the socket client. */
  close(): void {
    this.#client?.close();
  }
}
