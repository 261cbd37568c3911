/**
 * `serve`: opens the datastore (never migrates), listens on the API and metrics addresses, and
 * on SIGTERM/SIGINT keeps serving for `--shutdown-delay` with `/readyz` reporting `draining`,
 * then stops accepting, drains in-flight requests, and closes the pool (PGlite: checkpoints and
 * releases the data-directory lock).
 * @module
 */
import type { Logger } from "@svc/shared/log";
import { type RunningServer, startServer } from "@svc/shared/server";
import { createLifecycle } from "@svc/shared/lifecycle";
import { createRouter, withDefaultStack } from "@svc/shared/http";
import { createMetrics } from "@svc/shared/metrics";
import { metricsRoute } from "@svc/shared/operational";
import { createApp } from "../app.ts";
import type { Config } from "../config.ts";
import { loadMigrations } from "../migrate/migration_files.ts";
import { createMigrator } from "../migrate/migrator.ts";
import { openDb } from "../store/open_db.ts";
import { describeDurability } from "../store/durability.ts";
import denoJson from "../deno.json" with { type: "json" };

/** Starts the service; resolves once it listens. `finished` settles after shutdown. */
export async function serve(
  config: Config,
  options: { logger: Logger; handleSignals?: boolean },
): Promise<RunningServer> {
  const { logger } = options;
  // SIGTERM during startup is kept: the server then stops as soon as it listens.
  const lifecycle = createLifecycle({ logger, handleSignals: options.handleSignals ?? true });
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.dbPoolSize,
    pgliteSync: config.pgliteSync,
  }).catch((err) => {
    lifecycle.close();
    throw err;
  });
  try {
    const durability = await describeDurability(
      db,
      config.pgliteSync && !config.dataDir.startsWith("memory://"),
    );
    logger[durability.durable ? "info" : "warn"]("datastore open", {
      backend: db.kind,
      acknowledgedWritesDurable: durability.durable,
      durability: durability.detail,
    });
    const migrator = createMigrator(db, loadMigrations());
    const pending = await migrator.pending().catch(() => []);
    if (pending.length > 0) {
      logger.warn("migrations pending; not ready until `migrate up` runs", {
        pending: pending.map((m) => m.version),
      });
    }
    const metrics = createMetrics({ service: "todo-api" });
    const api = createApp({
      db,
      migrator,
      logger,
      authzEnabled: config.authzEnabled,
      cursorSecret: config.cursorSecret,
      maxBodyBytes: config.maxBodyBytes,
      keyCacheTtlMs: config.keyCacheTtlMs,
      bodyTimeoutMs: config.bodyTimeoutMs,
      metrics,
      version: denoJson.version,
      shutdownSignal: lifecycle.signal,
    });
    const scrape = withDefaultStack(createRouter([metricsRoute(metrics)]), { logger });
    return await startServer([
      { name: "api", addr: config.addr, handler: api },
      { name: "metrics", addr: config.metricsAddr, handler: scrape },
    ], {
      logger,
      lifecycle,
      shutdownDelay: config.shutdownDelayMs,
      shutdownGrace: config.shutdownGraceMs,
      onShutdown: async () => {
        await db.close();
        logger.info("datastore closed");
      },
    });
  } catch (err) {
    lifecycle.close();
    await db.close();
    throw err;
  }
}
