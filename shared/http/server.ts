/**
 * HTTP server lifecycle over `Deno.serve`: several named listeners per process (API, metrics,
 * control), optional TLS from PEM text, one startup line per listener, and graceful shutdown on
 * SIGTERM/SIGINT within a grace period.
 *
 * Timeouts: `Deno.serve` (2.9) has none, so the server applies the two that can be built around
 * a handler (`timeouts.readMs`: a request body must arrive in time, else 408; `timeouts.writeMs`:
 * the client must take the response body in time, else the connection is cut; see
 * `@svc/shared/http`'s `withReadTimeout` and `withWriteTimeout`). The per-request handler
 * timeout is `withTimeout`. Header-read and keep-alive idle timeouts cannot be enforced: Deno
 * hands over a request only once its head is complete and never exposes the connection, and
 * keeps slow or idle connections open indefinitely (measured on 2.9.6).
 *
 * Shutdown follows a {@linkcode Lifecycle} (`@svc/shared/lifecycle`): when its signal aborts
 * (SIGTERM, SIGINT, or {@linkcode RunningServer.shutdown}), the server keeps serving for the
 * shutdown delay (readiness built on the same signal reports `draining`, so load balancers move
 * away first), then stops accepting, drains within the grace period, stops the lifecycle's
 * background tasks within what is left of it, and runs `onShutdown`.
 *
 * It does not use `HttpServer.shutdown()`: in Deno 2.9 a server that was shut down can no
 * longer be aborted (its `finished` never settles and open streams stay open), so long-lived
 * responses would hang the process. Instead the server drains itself ({@linkcode createDrain}):
 * it counts requests until their responses are fully sent, answers new requests with 503 and
 * `Connection: close` while draining, waits until every recently busy keep-alive connection has
 * been told to close that way (so its client gets a 503, not a reset), and aborts (closing the
 * listener and every connection) once that is done or the grace period is over. What remains is
 * a connection accepted by the kernel in the instant the listener closes: see `createDrain`.
 *
 * Start-up work that no first request needs but that would hold one back (a worker thread's
 * start, a large module's evaluation, a datastore's open) is {@linkcode AfterFirstAnswer}: the
 * server starts it once its first answer has gone out, and stops at once, with that work's error,
 * when it fails.
 *
 * @module
 */
import type { Handler } from "./handler.ts";
import { firstAnswer } from "./first_answer.ts";
import type { Logger } from "../observe/log.ts";
import { errorResponse } from "./problem.ts";
import { withReadTimeout, withWriteTimeout, WriteTimeoutError } from "./io_timeouts.ts";
import { SettingsError } from "../settings/mod.ts";
import { createLifecycle, type Lifecycle } from "../lifecycle/lifecycle.ts";
import type { TasksReport } from "../lifecycle/background_tasks.ts";
import { createDrain } from "../lifecycle/drain.ts";
import { delay } from "../lifecycle/delay.ts";

/** One listener of a process. */
export interface ListenerSpec {
  /** Name used in logs and in {@linkcode RunningServer.urls}, e.g. `api`, `metrics`, `control`. */
  name: string;
  /** Go-style `host:port`; `:8080` listens on all interfaces; port 0 picks a free port. */
  addr: string;
  /** Answers the listener's requests. */
  handler: Handler;
  /** PEM certificate chain and private key (text, not paths). */
  tls?: { cert: string; key: string };
  /**
   * Sets `SO_REUSEPORT` (Linux: the kernel spreads connections over every listener on the port),
   * so several worker isolates of one process can serve one address. @default {false}
   */
  reusePort?: boolean;
  /**
   * The setting that moves this listener, as an operator types it, e.g. `--addr / MOCK_OIDC_ADDR`
   * (the settings table's `names(key)`); a listener that cannot start names it ("change …").
   */
  setting?: string;
  /**
   * How to grant network access to `hostPort` when the process's permissions do not cover it,
   * e.g. image-proxy's compile-time `IMGPROXY_ALLOW_NET`. @default {"run with --allow-net=<hostPort>"}
   */
  netGrant?: (hostPort: string) => string;
}

/** Timeouts the server enforces, in milliseconds; 0 or absent turns one off. */
export interface ServerTimeouts {
  /** A request body must have arrived this long after the request was handed over (408). */
  readMs?: number;
  /** A response body must have been taken by the client this long after the handler returned. */
  writeMs?: number;
}

/**
 * Start-up work deferred until the first listener's first answer has gone out (or its request
 * has arrived), bounded by `maxWaitMs` for when no request comes: see
 * {@linkcode StartServerOptions.afterFirstAnswer}.
 */
export interface AfterFirstAnswer {
  /**
   * What the start waits for: the first answer to go out (`"answer"`: work the first request
   * does not need, such as a signing thread or a library a later request loads), or that
   * request's arrival plus one turn of the event loop (`"arrival"`: work the first request itself
   * waits on, such as a datastore's open, so its handler has run up to that wait).
   * @default {"answer"}
   */
  after?: "answer" | "arrival";
  /** The start begins this long after `startServer` was called when no request has come. */
  maxWaitMs: number;
  /**
   * The work. `signal` is the lifecycle's: it aborts when the shutdown starts. Not called when the
   * shutdown starts first. A rejection stops the server at once (no shutdown delay: it was never
   * ready) and `finished` rejects with it; long-running work belongs in `lifecycle.spawn`.
   */
  start: (signal: AbortSignal) => Promise<void> | void;
}

/** Options of {@linkcode startServer}. */
export interface StartServerOptions {
  /** Gets the startup, shutdown and error lines. */
  logger: Logger;
  /** Time in-flight requests get to finish once accepting stops. @default {15000} */
  shutdownGrace?: number;
  /**
   * Time the server keeps serving after the shutdown starts, before it stops accepting; readiness
   * built on the lifecycle's signal reports `draining` meanwhile. @default {0}
   */
  shutdownDelay?: number;
  /** Socket timeouts. */
  timeouts?: ServerTimeouts;
  /** Runs after the listeners have closed and the tasks stopped: close pools, flush telemetry. */
  onShutdown?: () => Promise<void> | void;
  /**
   * Whose signal starts the shutdown and whose background tasks stop with it; closed when the
   * server has stopped. @default a new lifecycle with `handleSignals`
   */
  lifecycle?: Lifecycle;
  /** Listens for SIGTERM and SIGINT (when no `lifecycle` is given). @default {true} */
  handleSignals?: boolean;
  /**
   * Answers requests that arrive once accepting has stopped (`Connection: close` is added).
   * @default a 503 problem with code `shutting_down`
   */
  refuse?: Handler;
  /**
   * While draining, a keep-alive connection busy within this time is waited for (within the
   * grace period) until its next request has been told `Connection: close`. @default {1000}
   */
  closeNotice?: number;
  /**
   * Work to start once the first listener's first answer has gone out, or `maxWaitMs` after the
   * call when no request comes; skipped when the shutdown starts first.
   */
  afterFirstAnswer?: AfterFirstAnswer;
}

/** How a shutdown went. */
export interface ShutdownReport {
  /** Requests were still in flight when the grace period ran out and were cut. */
  forced: boolean;
  /** How the lifecycle's background tasks ended. */
  tasks: TasksReport;
}

/** A started server. */
export interface RunningServer {
  /** Base URL of each listener by name, e.g. `{ api: "http://127.0.0.1:41234" }`. */
  urls: Record<string, string>;
  /** Aborts when the shutdown starts (the lifecycle's signal). */
  signal: AbortSignal;
  /**
   * Starts the shutdown (delay, drain within the grace period, tasks, `onShutdown`) and resolves
   * when it is over. Idempotent.
   */
  shutdown(): Promise<ShutdownReport>;
  /**
   * Resolves once the server has shut down; rejects then with the error of
   * {@linkcode AfterFirstAnswer.start} when that failed.
   */
  finished: Promise<ShutdownReport>;
}

/** What {@linkcode startServer} returns: the running server and how its deferred start went. */
export interface StartedServer extends RunningServer {
  /**
   * `afterFirstAnswer.start`: resolves `true` once it has resolved, `false` when the shutdown
   * started before it was due (it was never called), and rejects with its error (`finished` then
   * rejects with the same error once the server has stopped). `true` at once without
   * `afterFirstAnswer`.
   */
  started: Promise<boolean>;
}

/**
 * Splits a Go-style listen address.
 *
 * @example Usage
 * ```ts
 * import { parseAddr } from "@svc/shared/server";
 * parseAddr(":8080"); // { hostname: "0.0.0.0", port: 8080 }
 * parseAddr("[::1]:0"); // { hostname: "::1", port: 0 }
 * ```
 * @throws {RangeError} when the address is not `host:port`.
 */
export function parseAddr(addr: string): { hostname: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\[\]]*)):(\d{1,5})$/.exec(addr);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    throw new RangeError(`Cannot parse listen address: expected host:port such as ":8080"`);
  }
  return { hostname: m[1] ?? (m[2] || "0.0.0.0"), port };
}

/**
 * Reads a PEM certificate and key pair for a TLS listener. Both or neither must be given.
 *
 * @example Usage
 * ```ts ignore
 * import { readTlsFiles } from "@svc/shared/server";
 * const tls = await readTlsFiles({ certFile: "cert.pem", keyFile: "key.pem" });
 * ```
 * @throws {SettingsError} when only one of the two files is configured or a file cannot be read
 * (`setting` and the message name the setting, never the file contents).
 */
export async function readTlsFiles(
  files: { certFile?: string; keyFile?: string },
  names: { cert: string; key: string } = { cert: "tls-cert-file", key: "tls-key-file" },
): Promise<{ cert: string; key: string } | undefined> {
  const { certFile, keyFile } = files;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) {
    const missing = certFile ? names.key : names.cert;
    throw new SettingsError(
      missing,
      `Cannot enable TLS: "${missing}" must be set together with the other file`,
    );
  }
  async function read(path: string, name: string): Promise<string> {
    try {
      return await Deno.readTextFile(path);
    } catch (err) {
      throw new SettingsError(
        name,
        `Cannot enable TLS: cannot read "${name}" (${(err as Error).name})`,
      );
    }
  }
  const cert = await read(certFile, names.cert);
  const key = await read(keyFile, names.key);
  // Checked here so that swapped or wrong files get a line naming the setting, not a TLS error.
  if (!/-----BEGIN CERTIFICATE-----/.test(cert)) {
    const swapped = /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(cert)
      ? " (it holds a private key: swapped?)"
      : "";
    throw new SettingsError(
      names.cert,
      `Cannot enable TLS: "${names.cert}" holds no PEM certificate${swapped}`,
    );
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) {
    const swapped = /-----BEGIN CERTIFICATE-----/.test(key)
      ? " (it holds a certificate: swapped?)"
      : "";
    throw new SettingsError(
      names.key,
      `Cannot enable TLS: "${names.key}" holds no PEM private key${swapped}`,
    );
  }
  return { cert, key };
}

function withIoTimeouts(handler: Handler, timeouts: ServerTimeouts): Handler {
  const read = withReadTimeout(handler, { ms: timeouts.readMs ?? 0 });
  return withWriteTimeout(read, { ms: timeouts.writeMs ?? 0 });
}

/** What {@linkcode probeAddr} needs of a listener. */
export type ListenerOf = Pick<ListenerSpec, "name" | "addr" | "setting" | "netGrant">;

/**
 * A listener that cannot start is a configuration problem: one line naming the listener, its
 * address (never a key or certificate) and the setting to change (or, for a missing network
 * permission, how to grant it), as a {@linkcode SettingsError} so entry points exit 2.
 */
function listenError(spec: ListenerOf, err: unknown, host: string): Error {
  const change = spec.setting ? `change ${spec.setting}` : undefined;
  if (err instanceof Deno.errors.NotCapable) {
    const { port } = parseAddr(spec.addr);
    const hostPort = `${host.includes(":") ? `[${host}]` : host}:${port}`;
    const grant = spec.netGrant?.(hostPort) ?? `run with --allow-net=${hostPort}`;
    const error = new SettingsError(
      spec.name,
      `Cannot listen on ${spec.addr} (${spec.name}): the network permission does not cover ` +
        `${hostPort} (${grant}${change ? `; or ${change}` : ""})`,
    );
    error.cause = err;
    return error;
  }
  const why = err instanceof Deno.errors.AddrInUse
    ? "the address is already in use"
    : err instanceof Deno.errors.PermissionDenied
    ? "permission denied (a port below 1024, or no --allow-net for it)"
    : err instanceof Deno.errors.AddrNotAvailable
    ? "the address is not available on this host"
    : err instanceof Deno.errors.InvalidData ||
        /private key|certificate/i.test(String((err as Error)?.message))
    ? "the TLS certificate or key is not valid PEM, or they do not belong together"
    : /lookup|resolve|Name or service not known/i.test(String((err as Error)?.message))
    ? "the host name cannot be resolved"
    : (err as Error)?.name ?? "unknown error";
  const error = new SettingsError(
    spec.name,
    `Cannot listen on ${spec.addr} (${spec.name}): ${why}${change ? ` (${change})` : ""}`,
  );
  error.cause = err;
  return error;
}

/**
 * Checks that a listener's address is free by binding it and letting go at once, and resolves
 * port 0 to the free port the system chose. Worker isolates that share one address with
 * `reusePort` need it first: a listener with `SO_REUSEPORT` would silently share its port with
 * another process listening there the same way, instead of failing. (The port can still be taken
 * between this check and the workers' listen; they then fail as usual.)
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { probeAddr } from "@svc/shared/server";
 * const addr = probeAddr({ name: "api", addr: "127.0.0.1:0" }); // e.g. "127.0.0.1:41234"
 * assert.match(addr, /^127\.0\.0\.1:[1-9]\d*$/);
 * ```
 * @throws {SettingsError} as {@linkcode startServer} does: one line naming the listener and its
 * address, e.g. `Cannot listen on :8080 (api): the address is already in use`.
 */
export function probeAddr(spec: ListenerOf): string {
  const { hostname, port } = parseAddr(spec.addr);
  const anyHost = spec.addr.startsWith(":");
  const bind = (host: string) => {
    const listener = Deno.listen({ hostname: host, port });
    const bound = (listener.addr as Deno.NetAddr).port;
    listener.close();
    return bound;
  };
  let bound: number;
  try {
    bound = bind(anyHost ? "::" : hostname);
  } catch (err) {
    if (!anyHost || err instanceof Deno.errors.AddrInUse) {
      throw listenError(spec, err, anyHost ? "::" : hostname);
    }
    try {
      bound = bind(hostname);
    } catch (again) {
      throw listenError(spec, again, hostname);
    }
  }
  return spec.addr.replace(/\d+$/, String(bound));
}

function urlOf(addr: Deno.NetAddr, tls: boolean): string {
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  return `${tls ? "https" : "http"}://${host}:${addr.port}`;
}

/**
 * Starts every listener and resolves once all of them listen. Its lifecycle records are the same
 * in every service: `server_starting` (`listen`), one `server_listening` per listener
 * (`listener`, `url`), `shutdown_started` (`delay_ms`, `grace_ms`), then `shutdown_completed`, or
 * `shutdown_forced` when the grace ran out with requests in flight.
 *
 * @example Usage
 * ```ts ignore
 * import { startServer } from "@svc/shared/server";
 * import { createLogger } from "@svc/shared/log";
 * const server = await startServer(
 *   [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response("ok") }],
 *   { logger: createLogger() },
 * );
 * await server.finished; // until SIGTERM / SIGINT
 * ```
 *
 * @example Start-up work after the first answer
 * ```ts
 * import assert from "node:assert/strict";
 * import { startServer } from "@svc/shared/server";
 * import { silentLogger } from "@svc/shared/log";
 *
 * let signerReady = false;
 * const server = await startServer(
 *   [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response("ok") }],
 *   {
 *     logger: silentLogger(),
 *     handleSignals: false,
 *     // e.g. a signing thread: its start would hold up the first answer's write
 *     afterFirstAnswer: { maxWaitMs: 1_000, start: () => void (signerReady = true) },
 *   },
 * );
 * assert.equal(await (await fetch(server.urls.api)).text(), "ok");
 * assert.equal(await server.started, true);
 * assert.equal(signerReady, true);
 * await server.shutdown();
 * ```
 * @throws {SettingsError} when a listener cannot start, naming it, its address and its setting.
 */
export async function startServer(
  listeners: readonly ListenerSpec[],
  options: StartServerOptions,
): Promise<StartedServer> {
  const { logger, shutdownGrace = 15_000, shutdownDelay = 0, timeouts = {} } = options;
  // Signals are watched before the first listener announces itself, so a supervisor that sends
  // SIGTERM right after the "server_listening" line always gets a graceful stop.
  const lifecycle = options.lifecycle ??
    createLifecycle({ logger, handleSignals: options.handleSignals ?? true });
  const controller = new AbortController();
  const servers: Deno.HttpServer<Deno.NetAddr>[] = [];
  const drain = createDrain({ refuse: options.refuse, closeNoticeMs: options.closeNotice });
  const urls: Record<string, string> = {};
  // The first listener's answers are watched when start-up work waits for the first of them.
  const deferred = options.afterFirstAnswer;
  const first = deferred && listeners.length > 0
    ? firstAnswer(listeners[0].handler, {
      maxWaitMs: deferred.maxWaitMs,
      after: deferred.after,
      signal: lifecycle.signal,
    })
    : undefined;
  logger.info("server_starting", { listen: listeners.map((l) => `${l.name}=${l.addr}`) });
  try {
    const handlerOf = (spec: ListenerSpec) =>
      first && spec === listeners[0] ? first.handler : spec.handler;
    for (const spec of listeners) {
      const { hostname, port } = parseAddr(spec.addr);
      // `:port` means every interface: IPv6 `::` (dual-stack on Linux, so IPv4 too), or IPv4
      // alone where the host has no IPv6.
      const anyHost = spec.addr.startsWith(":");
      const serveOn = (host: string) =>
        new Promise<void>((resolve, reject) => {
          try {
            servers.push(Deno.serve({
              hostname: host,
              port,
              reusePort: spec.reusePort ?? false,
              signal: controller.signal,
              ...(spec.tls ?? {}),
              onListen(addr) {
                urls[spec.name] = urlOf(addr, spec.tls !== undefined);
                logger.info("server_listening", { listener: spec.name, url: urls[spec.name] });
                resolve();
              },
              onError: (err) => {
                if (!(err instanceof WriteTimeoutError)) return errorResponse(err, { logger });
                logger.info("write timeout: connection closed", { listener: spec.name });
                return new Response(null, { status: 408 }); // never sent: the body had begun
              },
            }, drain.track(withIoTimeouts(handlerOf(spec), timeouts))));
          } catch (err) {
            reject(err);
          }
        });
      try {
        await serveOn(anyHost ? "::" : hostname);
      } catch (err) {
        if (!anyHost || err instanceof Deno.errors.AddrInUse) {
          throw listenError(spec, err, anyHost ? "::" : hostname);
        }
        await serveOn(hostname).catch((again) =>
          Promise.reject(listenError(spec, again, hostname))
        );
      }
    }
  } catch (err) {
    if (!options.lifecycle) lifecycle.close();
    controller.abort();
    await Promise.allSettled(servers.map((s) => s.finished));
    throw err;
  }
  logger.debug("server timeouts", { readMs: timeouts.readMs ?? 0, writeMs: timeouts.writeMs ?? 0 });

  // The deferred start: skipped when the shutdown came first; a failure stops the server.
  let startFailure: { error: unknown } | undefined;
  const started = first
    ? first.answered.then(async () => {
      if (lifecycle.signal.aborted) return false;
      await deferred!.start(lifecycle.signal);
      return true;
    }).catch((error) => {
      startFailure = { error };
      lifecycle.shutdown("start failed");
      throw error;
    })
    : Promise.resolve(true);
  started.catch(() => {}); // observed through `started` and `finished`

  async function stop(): Promise<ShutdownReport> {
    const stopping = performance.now();
    // A server whose start failed was never ready: nothing to keep serving for.
    const delayMs = startFailure ? 0 : shutdownDelay;
    logger.info("shutdown_started", { delay_ms: delayMs, grace_ms: shutdownGrace });
    if (delayMs > 0) await delay(delayMs);
    const forced = !await drain.drain(shutdownGrace);
    if (forced) {
      logger.warn("grace period over: closing open connections", { inFlight: drain.inFlight() });
    }
    // `completed` settles when the body is handed to the socket, not when it has been
    // flushed; one more turn of the event loop lets the last bytes go out.
    await delay(20);
    controller.abort();
    await Promise.allSettled(servers.map((s) => s.finished));
    // The tasks were aborted when the shutdown started; they get what is left of the grace.
    const left = stopping + delayMs + shutdownGrace - performance.now();
    const tasks = await lifecycle.stopTasks({ timeoutMs: Math.max(0, left) });
    try {
      await options.onShutdown?.();
    } catch (err) {
      logger.error("shutdown hook failed", { err });
    }
    lifecycle.close();
    logger.info(forced ? "shutdown_forced" : "shutdown_completed");
    return { forced, tasks };
  }
  const finished = lifecycle.untilShutdown().then(stop).then((report) => {
    if (startFailure) throw startFailure.error;
    return report;
  });
  finished.catch(() => {}); // observed by whoever awaits it
  function shutdown(): Promise<ShutdownReport> {
    lifecycle.shutdown();
    return finished;
  }
  return { urls, signal: lifecycle.signal, shutdown, finished, started };
}
