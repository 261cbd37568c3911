/**
 * The settings table `SETTINGS` (flag > env > default) and `Settings`, what every command reads
 * once they are resolved.
 * @module
 */
import { parseAddr } from "@svc/shared/server";
import { defineSettings, SettingsError } from "@svc/shared/settings";
import { databaseUrlProblem } from "./store/database_url.ts";

function addrProblem(value: string): string | undefined {
  try {
    parseAddr(value);
    return undefined;
  } catch {
    return 'expected host:port such as ":8080"';
  }
}

/** Every setting of every subcommand; each subcommand reads the ones it needs. */
export const SETTINGS = defineSettings({
  prefix: "TODOAPI",
  settings: {
    "database_url": {
      type: "string",
      default: "",
      secret: true,
      validate: databaseUrlProblem,
      help: "Postgres server URL (postgres://…); empty uses embedded PGlite in --data-dir",
    },
    "data_dir": {
      type: "string",
      default: "./.data/todo-api",
      help: "PGlite data directory (locked by <dir>.lock while open)",
    },
    "pglite_sync": {
      type: "bool",
      default: true,
      help: "PGlite: flush each commit to disk before acknowledging it (durable); false is " +
        "faster but a power loss or OS crash can drop acknowledged writes",
    },
    "addr": {
      type: "string",
      default: ":8080",
      validate: addrProblem,
      help: "API listen address host:port",
    },
    "metrics_addr": {
      type: "string",
      default: ":9090",
      validate: addrProblem,
      help: "Metrics listen address host:port",
    },
    "authz_enabled": {
      type: "bool",
      default: true,
      help: "Require API keys on /v1 routes; false lets every call act as admin",
    },
    "cursor_secret": {
      type: "string",
      default: "",
      secret: true,
      help: "HMAC key for page cursors; empty uses a random key stored in the database",
    },
    "max_body_bytes": {
      type: "int",
      default: 1048576,
      min: 1,
      help: "Largest accepted request body (413 above)",
    },
    "body_read_timeout": {
      type: "duration",
      default: 5000,
      min: 1,
      help: "Time a request body may take to arrive (408 after)",
    },
    "key_cache_ttl": {
      type: "duration",
      default: 5000,
      help: "How long a key lookup is cached; a revoked key works at most this long",
    },
    "db_pool_size": {
      type: "int",
      default: 10,
      min: 1,
      max: 1000,
      help: "Connections to a Postgres server",
    },
    "workers": {
      type: "int",
      default: 0,
      min: 0,
      max: 256,
      help: "serve: worker isolates serving the API on one port, each with its own pool of " +
        "--db-pool-size connections; 0 = one per CPU core on Postgres, 1 on embedded PGlite " +
        "(which refuses more)",
    },
    "shutdown_delay": {
      type: "duration",
      default: 0,
      help:
        "How long serving goes on after SIGTERM, with /readyz reporting draining, before the drain",
    },
    "shutdown_grace": {
      type: "duration",
      default: 10000,
      help: "How long shutdown waits for in-flight requests",
    },
    "log_level": {
      type: "string",
      default: "info",
      choices: ["debug", "info", "warn", "error"],
      help: "Log level",
    },
    "lock_timeout": {
      type: "duration",
      default: 30000,
      env: false,
      help: "migrate: how long to wait for another migrator's advisory lock",
    },
    "all": {
      type: "bool",
      default: false,
      env: false,
      help: "migrate down: revert every migration",
    },
    "exit_code": {
      type: "bool",
      default: false,
      env: false,
      help: "migrate status: exit 3 when migrations are pending",
    },
    "subject": { type: "string", default: "", env: false, help: "keys create: the key's subject" },
    "role": {
      type: "list",
      default: [],
      env: false,
      help: "keys create: role(s), comma-separated or the flag repeated (user, admin)",
    },
    "expires_at": {
      type: "string",
      default: "",
      env: false,
      help: "keys create: RFC 3339 time after which the key stops working; empty = never",
    },
    "url": {
      type: "string",
      default: "",
      env: false,
      help: "keys: run the command through a running server's /v1/keys API at this base URL " +
        "(e.g. http://localhost:8080) instead of on the database; needs an admin key",
    },
    "api_key": {
      type: "string",
      default: "",
      secret: true,
      help: "keys --url: the admin API key to call the server with",
    },
  },
});

/** The settings once resolved: what `serve`, `migrate` and `keys` read. */
export interface Settings {
  databaseUrl: string;
  dataDir: string;
  pgliteSync: boolean;
  addr: string;
  metricsAddr: string;
  authzEnabled: boolean;
  cursorSecret: string;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  keyCacheTtlMs: number;
  dbPoolSize: number;
  /** `serve`'s worker isolates as set; 0 = automatic (see {@linkcode workerCount}). */
  workers: number;
  shutdownDelayMs: number;
  shutdownGraceMs: number;
  logLevel: "debug" | "info" | "warn" | "error";
  lockTimeoutMs: number;
  all: boolean;
  exitCode: boolean;
  subject: string;
  roles: string[];
  expiresAt: string;
  url: string;
  apiKey: string;
}

/**
 * Resolves args and env into the settings plus positionals (the subcommand words).
 * @throws {SettingsError} naming the setting, never its value.
 */
export function resolveSettings(
  args: string[],
  env: (name: string) => string | undefined,
): { settings: Settings; positionals: string[] } {
  const { values: v, positionals } = SETTINGS.resolve({ args, env });
  return {
    positionals,
    settings: {
      databaseUrl: v.database_url,
      dataDir: v.data_dir,
      pgliteSync: v.pglite_sync,
      addr: v.addr,
      metricsAddr: v.metrics_addr,
      authzEnabled: v.authz_enabled,
      cursorSecret: v.cursor_secret,
      maxBodyBytes: v.max_body_bytes,
      bodyTimeoutMs: v.body_read_timeout,
      keyCacheTtlMs: v.key_cache_ttl,
      dbPoolSize: v.db_pool_size,
      workers: v.workers,
      shutdownDelayMs: v.shutdown_delay,
      shutdownGraceMs: v.shutdown_grace,
      logLevel: v.log_level,
      lockTimeoutMs: v.lock_timeout,
      all: v.all,
      exitCode: v.exit_code,
      subject: v.subject,
      roles: v.role,
      expiresAt: v.expires_at,
      url: v.url,
      apiKey: v.api_key,
    },
  };
}

/**
 * How many worker isolates `serve` runs: the setting, or with 0 one per CPU core
 * (`cores`, from `navigator.hardwareConcurrency`) on a Postgres server and 1 on embedded PGlite.
 * @throws {SettingsError} when more than one is asked for on PGlite, whose data directory one
 * isolate holds.
 */
export function workerCount(
  settings: Pick<Settings, "workers" | "databaseUrl">,
  cores: number,
): number {
  const onPostgres = settings.databaseUrl.trim() !== "";
  if (settings.workers === 0) return onPostgres ? Math.max(1, Math.floor(cores)) : 1;
  if (settings.workers > 1 && !onPostgres) {
    throw new SettingsError(
      "workers",
      "Cannot serve on more than one worker: " +
        "the embedded PGlite database is held by one isolate; " +
        'set "workers" (--workers, TODOAPI_WORKERS) to 1, or use a Postgres server ' +
        "(TODOAPI_DATABASE_URL)",
    );
  }
  return settings.workers;
}

/** Usage text built from the table. */
export function usage(): string {
  return [
    "Usage:",
    "  todo-api serve [flags]",
    "  todo-api migrate up | down [N] [--all] | status [--exit-code]",
    "  todo-api keys create --subject S --role user|admin [--expires-at T] | keys list |",
    "           keys revoke <id>   [--url URL --api-key K: through a running server's API]",
    "",
    "Flags:",
    "  --help, -h",
    "      Show this text",
    SETTINGS.help(),
  ].join("\n");
}
