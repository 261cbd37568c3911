/** todo-api as a library: the app, its datastore and the operator commands. @module */
export { createApp } from "./app.ts";
export type { App, AppDeps } from "./app.ts";
export type { Db, Queryable, Row } from "./store/db.ts";
export { type DbConfig, openDb } from "./store/open_db.ts";
export { openPgliteDb, type PgliteDb, type PgliteDbOptions } from "./store/pglite_db.ts";
export { openPostgresDb, type PostgresDbOptions } from "./store/postgres_db.ts";
export { type DataDirLock, DataDirLockedError } from "./store/data_dir_lock.ts";
export { loadMigrations, type Migration } from "./migrate/migration_files.ts";
export {
  createMigrator,
  MigrationLockedError,
  type MigrationStatus,
  type Migrator,
  type MigratorOptions,
} from "./migrate/migrator.ts";
export {
  type ApiKeyRecord,
  type ApiKeyStore,
  createApiKeyStore,
  keyDigest,
  type NewKey,
  type Principal,
} from "./auth/api_keys.ts";
export type { KeyChanges } from "./auth/key_changes.ts";
export type { Position } from "./todos/todo_store.ts";
export { SCHEMAS } from "./http/schemas.ts";
