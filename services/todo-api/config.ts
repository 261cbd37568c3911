/**
 * The settings table (flag > env > default) and the resolved config every command uses.
 * @module
 */
import { parseAddr } from "@svc/shared/server";
import { resolveSettings, settingsHelp, type SettingSpec } from "@svc/shared/settings";

function addrProblem(value: unknown): string | undefined {
  try {
    parseAddr(String(value));
    return undefined;
  } catch {
    return 'expected host:port such as ":8080"';
  }
}

/** Every setting of every subcommand; each subcommand reads the ones it needs. */
export const SETTINGS: SettingSpec[] = [
  {
    name: "database-url",
    type: "string",
    default: "",
    env: "TODOAPI_DATABASE_URL",
    secret: true,
    help: "Postgres server URL (postgres://…); empty uses embedded PGlite in --data-dir",
  },
  {
    name: "data-dir",
    type: "string",
    default: "./.data/todo-api",
    env: "TODOAPI_DATA_DIR",
    help: "PGlite data directory (locked by <dir>.lock while open)",
  },
  {
    name: "addr",
    type: "string",
    default: ":8080",
    env: "TODOAPI_ADDR",
    help: "API listen address host:port",
    validate: addrProblem,
  },
  {
    name: "metrics-addr",
    type: "string",
    default: ":9090",
    env: "TODOAPI_METRICS_ADDR",
    help: "Metrics listen address host:port",
    validate: addrProblem,
  },
  {
    name: "authz-enabled",
    type: "bool",
    default: true,
    env: "TODOAPI_AUTHZ_ENABLED",
    help: "Require API keys on /v1 routes; false lets every call act as admin",
  },
  {
    name: "cursor-secret",
    type: "string",
    default: "",
    env: "TODOAPI_CURSOR_SECRET",
    secret: true,
    help: "HMAC key for page cursors; empty uses a random key stored in the database",
  },
  {
    name: "max-body-bytes",
    type: "int",
    default: 1048576,
    env: "TODOAPI_MAX_BODY_BYTES",
    min: 1,
    help: "Largest accepted request body (413 above)",
  },
  {
    name: "body-read-timeout",
    type: "duration",
    default: 5000,
    env: "TODOAPI_BODY_READ_TIMEOUT",
    min: 1,
    help: "Time a request body may take to arrive (408 after)",
  },
  {
    name: "key-cache-ttl",
    type: "duration",
    default: 5000,
    env: "TODOAPI_KEY_CACHE_TTL",
    help: "How long a key lookup is cached; a revoked key works at most this long",
  },
  {
    name: "db-pool-size",
    type: "int",
    default: 10,
    env: "TODOAPI_DB_POOL_SIZE",
    min: 1,
    max: 1000,
    help: "Connections to a Postgres server",
  },
  {
    name: "shutdown-delay",
    type: "duration",
    default: 0,
    env: "TODOAPI_SHUTDOWN_DELAY",
    help:
      "How long serving goes on after SIGTERM, with /readyz reporting draining, before the drain",
  },
  {
    name: "shutdown-grace",
    type: "duration",
    default: 10000,
    env: "TODOAPI_SHUTDOWN_GRACE",
    help: "How long shutdown waits for in-flight requests",
  },
  {
    name: "log-level",
    type: "string",
    default: "info",
    env: "TODOAPI_LOG_LEVEL",
    choices: ["debug", "info", "warn", "error"],
    help: "Log level",
  },
  {
    name: "lock-timeout",
    type: "duration",
    default: 30000,
    help: "migrate: how long to wait for another migrator's advisory lock",
  },
  { name: "all", type: "bool", default: false, help: "migrate down: revert every migration" },
  {
    name: "exit-code",
    type: "bool",
    default: false,
    help: "migrate status: exit 3 when migrations are pending",
  },
  { name: "subject", type: "string", default: "", help: "keys create: the key's subject" },
  {
    name: "role",
    type: "list",
    default: [],
    help: "keys create: role(s), comma-separated (user, admin)",
  },
  { name: "help", type: "bool", default: false, help: "Show usage" },
];

/** The resolved configuration. */
export interface Config {
  databaseUrl: string;
  dataDir: string;
  addr: string;
  metricsAddr: string;
  authzEnabled: boolean;
  cursorSecret: string;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  keyCacheTtlMs: number;
  dbPoolSize: number;
  shutdownDelayMs: number;
  shutdownGraceMs: number;
  logLevel: "debug" | "info" | "warn" | "error";
  lockTimeoutMs: number;
  all: boolean;
  exitCode: boolean;
  subject: string;
  roles: string[];
  help: boolean;
}

/** Resolves args and env into the config plus positionals (the subcommand words). */
export function loadConfig(
  args: string[],
  env: (name: string) => string | undefined,
): { config: Config; positionals: string[] } {
  const { values: v, positionals } = resolveSettings(SETTINGS, { args, env });
  return {
    positionals,
    config: {
      databaseUrl: v["database-url"] as string,
      dataDir: v["data-dir"] as string,
      addr: v["addr"] as string,
      metricsAddr: v["metrics-addr"] as string,
      authzEnabled: v["authz-enabled"] as boolean,
      cursorSecret: v["cursor-secret"] as string,
      maxBodyBytes: v["max-body-bytes"] as number,
      bodyTimeoutMs: v["body-read-timeout"] as number,
      keyCacheTtlMs: v["key-cache-ttl"] as number,
      dbPoolSize: v["db-pool-size"] as number,
      shutdownDelayMs: v["shutdown-delay"] as number,
      shutdownGraceMs: v["shutdown-grace"] as number,
      logLevel: v["log-level"] as Config["logLevel"],
      lockTimeoutMs: v["lock-timeout"] as number,
      all: v["all"] as boolean,
      exitCode: v["exit-code"] as boolean,
      subject: v["subject"] as string,
      roles: v["role"] as string[],
      help: v["help"] as boolean,
    },
  };
}

/** Usage text built from the table. */
export function usage(): string {
  return [
    "Usage:",
    "  todo-api serve [flags]",
    "  todo-api migrate up | down [N] [--all] | status [--exit-code]",
    "  todo-api keys create --subject S --role user|admin | keys list | keys revoke <id>",
    "",
    "Flags:",
    settingsHelp(SETTINGS),
  ].join("\n");
}
