/**
 * `serve`, the composition root: resolves how many isolates serve (`--workers`), and in each one
 * wires the datastore (opened behind the listener), the migrator readiness asks, the key-change
 * generation the authenticator follows, the app (`app.ts`), the listeners and the shutdown.
 *
 * One isolate ({@linkcode serveIsolate}) listens on the API address (and, when asked, the metrics
 * address), then opens the datastore behind the listener, once the first request has come in (the
 * kit's `afterFirstAnswer`; never migrates; requests that need it wait, `/readyz` says it is still
 * opening), and once its lifecycle's shutdown starts keeps serving
 * for `--shutdown-delay` with `/readyz` reporting `draining`, then stops accepting, drains
 * in-flight requests, and closes the pool (PGlite: checkpoints and releases the data-directory
 * lock). {@linkcode serve} runs it in the main isolate; with workers, `workers/serve_workers.ts`
 * runs it as worker 1 and `workers/serve_worker.ts` in each worker isolate. SIGTERM/SIGINT start
 * a graceful shutdown either way.
 * @module
 */
import type { Logger } from "@svc/shared/log";
import {
  type ListenerSpec,
  type RunningServer,
  type StartedServer,
  startServer,
} from "@svc/shared/server";
import { createLifecycle, type Lifecycle } from "@svc/shared/lifecycle";
import { createRouter, withDefaultStack } from "@svc/shared/http";
import { createMetrics, type Metrics } from "@svc/shared/metrics";
import { metricsRoute } from "@svc/shared/operational";
import { createApp } from "./app.ts";
import { KEY_CHANGES_CHANNEL } from "./auth/api_keys.ts";
import { createKeyChanges, type KeyChanges } from "./auth/key_changes.ts";
import { SETTINGS, type Settings, workerCount } from "./settings.ts";
import type { Migrator } from "./migrate/migrator.ts";
import type { Db } from "./store/db.ts";
import { reserveDb } from "./store/open_db.ts";
import { openingDb } from "./store/opening_db.ts";
import { describeDurability } from "./store/durability.ts";
import { thrownMessage } from "./thrown.ts";
import denoJson from "./deno.json" with { type: "json" };

/** Options of {@linkcode serve}. */
export interface ServeOptions {
  /** Gets the start-up, access and shutdown lines. */
  logger: Logger;
  /** Starts the shutdown on SIGTERM and SIGINT. @default {true} */
  handleSignals?: boolean;
  /** CPU cores, for `--workers 0`. @default {navigator.hardwareConcurrency} */
  cores?: number;
}

/**
 * Starts the service; resolves once it listens (the datastore opens behind the listener).
 * `finished` settles after shutdown, or rejects when the start fails after all.
 * @throws {SettingsError} for more than one worker on PGlite, or an address that cannot be used.
 */
export async function serve(settings: Settings, options: ServeOptions): Promise<RunningServer> {
  const { logger } = options;
  const workers = workerCount(settings, options.cores ?? navigator.hardwareConcurrency);
  if (workers > 1) {
    const { serveOnWorkers } = await import("./workers/serve_workers.ts");
    return await serveOnWorkers(settings, { ...options, workers, serveIsolate });
  }
  // SIGTERM during startup is kept: the server then stops as soon as it listens.
  const lifecycle = createLifecycle({ logger, handleSignals: options.handleSignals ?? true });
  const metrics = createMetrics({ service: "todo-api" });
  return await serveIsolate(settings, { logger, lifecycle, metrics, metricsListener: true });
}

/** {@linkcode IsolateOptions.openAfterMs}'s default. */
const OPEN_AFTER_MS = 50;

/** What {@linkcode serveIsolate} needs besides the settings. */
export interface IsolateOptions {
  /** Gets the start-up, access and shutdown lines. */
  logger: Logger;
  /** Whose signal starts the shutdown; closed when the server has stopped or failed to start. */
  lifecycle: Lifecycle;
  /** The isolate's request counts and latencies. */
  metrics: Metrics;
  /** Also serve `/metrics` on `--metrics-addr` (with workers, the main isolate does). */
  metricsListener: boolean;
  /** `SO_REUSEPORT` on the API listener, so worker isolates share its port. @default {false} */
  reusePort?: boolean;
  /** The key-change generation shared with the other worker isolates. */
  keyChanges?: KeyChanges;
  /**
   * With no request to answer first, the datastore's open starts this long into the start.
   * @default {50}
   */
  openAfterMs?: number;
}

/** What {@linkcode serveIsolate} gives: the running server, and when its datastore is open. */
export interface IsolateServer extends RunningServer {
  /** Resolves once the datastore is open; rejects with the open's error. */
  opened: Promise<void>;
}

/**
 * Starts serving; resolves once it listens. The datastore opens behind the listener: `/healthz`
 * answers at once, `/readyz` is 503 (`the datastore is still opening`) until it is open, and
 * requests that need it wait for it. `finished` settles after shutdown, and rejects with the open's
 * error when the datastore cannot be opened (the listeners are closed first).
 * @throws {SettingsError} for an address that cannot be used; {@linkcode DataDirLockedError} when
 * another process holds the PGlite directory (both before listening).
 */
export async function serveIsolate(
  settings: Settings,
  options: IsolateOptions,
): Promise<IsolateServer> {
  const { logger, lifecycle, metrics } = options;
  // The quick part first (URL, PGlite's lock), so a directory in use fails before listening.
  const reserved = await reserveDb({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    poolSize: settings.dbPoolSize,
    pgliteSync: settings.pgliteSync,
  }).catch((err) => {
    lifecycle.close();
    throw err;
  });
  const opening = Promise.withResolvers<Db>();
  const db = openingDb(reserved.kind, opening.promise);
  const migrator = pendingMigrations(db);
  // Revocations by other processes on the same Postgres database (another instance, the CLI)
  // arrive as NOTIFY and drop this isolate's key cache (and, through the shared generation, every
  // worker's). Without the listener, the key cache TTL is the bound.
  const keyChanges = options.keyChanges ?? createKeyChanges();
  let began = false; // whether the open was started (a shutdown first skips it)
  let server: StartedServer;
  try {
    const api = createApp({
      db,
      migrator,
      logger,
      authzEnabled: settings.authzEnabled,
      cursorSecret: settings.cursorSecret,
      maxBodyBytes: settings.maxBodyBytes,
      keyCacheTtlMs: settings.keyCacheTtlMs,
      bodyTimeoutMs: settings.bodyTimeoutMs,
      metrics,
      version: denoJson.version,
      shutdownSignal: lifecycle.signal,
      keyChanges,
    });
    const listeners: ListenerSpec[] = [
      {
        name: "api",
        addr: settings.addr,
        handler: api,
        reusePort: options.reusePort,
        setting: SETTINGS.names("addr"),
      },
    ];
    if (options.metricsListener) {
      const scrape = withDefaultStack(createRouter([metricsRoute(metrics)]), { logger });
      const setting = SETTINGS.names("metrics_addr");
      listeners.push({ name: "metrics", addr: settings.metricsAddr, handler: scrape, setting });
    }
    server = await startServer(listeners, {
      logger,
      lifecycle,
      shutdownDelay: settings.shutdownDelayMs,
      shutdownGrace: settings.shutdownGraceMs,
      // Loading a datastore client holds the event loop for up to hundreds of ms (the Postgres
      // client pulls node's net/tls/crypto built-ins in synchronously), so the open starts once
      // the first request has had its turn, or `openAfterMs` into the start when none comes:
      // requests that reach a fresh listener are answered first, not behind the load. An open
      // that fails ends the start with its error, at once (`finished` rejects; `main` exits 1).
      afterFirstAnswer: {
        after: "arrival",
        maxWaitMs: options.openAfterMs ?? OPEN_AFTER_MS,
        start: async () => {
          began = true;
          const open = await reserved.open().catch((err) => {
            opening.reject(err);
            throw err;
          });
          opening.resolve(open);
          announceOpen(open, { settings, logger, migrator, keyChanges }).catch((err) =>
            logger.warn("cannot describe the datastore", { err })
          );
        },
      },
      onShutdown: async () => {
        if (await db.opened.then(() => true, () => false)) {
          await db.close();
          logger.info("datastore closed");
        } else if (!began) await reserved.release(); // never opened: PGlite's lock goes back
      },
    });
  } catch (err) {
    lifecycle.close();
    opening.reject(err);
    opening.promise.catch(() => {});
    await reserved.release();
    throw err;
  }
  // `keys` run while this server holds the embedded database then names where it answers.
  await reserved.announce(localUrlOf(server.urls.api)).catch((err) =>
    logger.warn("cannot record the server's URL in the data directory's lock file", {
      error: thrownMessage(err),
    })
  );
  // A shutdown before the open was due: nothing opens, and requests waiting on the datastore get
  // its 503 instead of waiting out the grace period.
  server.started.then((started) => {
    if (!started) opening.reject(new Error("Cannot open the datastore: the server is stopping"));
  }, () => {}); // a failed open: `finished` rejects with its error
  const opened = db.opened.then(() => {});
  opened.catch(() => {}); // a failure is reported through `finished`
  return {
    urls: server.urls,
    signal: server.signal,
    shutdown: server.shutdown,
    finished: server.finished,
    opened,
  };
}

/** The URL a client on this host reaches a listener at (a wildcard address is localhost). */
function localUrlOf(url: string): string {
  const u = new URL(url);
  if (u.hostname === "0.0.0.0" || u.hostname === "[::]") u.hostname = "localhost";
  return u.origin;
}

/** Once open: the start-up lines (durability, pending migrations) and the key-change listener. */
async function announceOpen(
  db: Db,
  options: {
    settings: Settings;
    logger: Logger;
    migrator: Pick<Migrator, "pending">;
    keyChanges: KeyChanges;
  },
): Promise<void> {
  const { settings, logger, migrator, keyChanges } = options;
  // Not awaited: serving does not wait for (or on) the listening connection.
  db.listen?.(KEY_CHANGES_CHANNEL, () => keyChanges.bump()).catch((err) => {
    logger.warn(
      "cannot listen for key changes; revocations by other processes apply within " +
        "--key-cache-ttl",
      { error: thrownMessage(err) },
    );
  });
  const durability = await describeDurability(
    db,
    settings.pgliteSync && !settings.dataDir.startsWith("memory://"),
  );
  logger[durability.durable ? "info" : "warn"]("datastore open", {
    backend: db.kind,
    acknowledgedWritesDurable: durability.durable,
    durability: durability.detail,
  });
  const pending = await migrator.pending().catch(() => []);
  if (pending.length > 0) {
    logger.warn("migrations pending; not ready until `migrate up` runs", {
      pending: pending.map((m) => m.version),
    });
  }
}

/**
 * The migrator's `pending()`, its modules (the migration files and their checksums) loaded on
 * first use: readiness and the start-up line need it only once the datastore is open.
 */
function pendingMigrations(db: Db): Pick<Migrator, "pending"> {
  let migrator: Promise<Migrator> | undefined;
  return {
    async pending() {
      migrator ??= Promise.all([
        import("./migrate/migration_files.ts"),
        import("./migrate/migrator.ts"),
      ]).then(([files, m]) => m.createMigrator(db, files.loadMigrations()));
      return await (await migrator).pending();
    },
  };
}
