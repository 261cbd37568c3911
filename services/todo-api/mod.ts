/** todo-api as a library: the app, its datastore and the operator commands. @module */
export { createApp } from "./app.ts";
export type { AppDeps } from "./app.ts";
export type { Db, Queryable } from "./store/db.ts";
export { openDb } from "./store/open_db.ts";
export { openPgliteDb, type PgliteDb } from "./store/pglite_db.ts";
export { openPostgresDb } from "./store/postgres_db.ts";
export { DataDirLockedError } from "./store/data_dir_lock.ts";
export { loadMigrations, type Migration } from "./migrate/migration_files.ts";
export { createMigrator, MigrationLockedError, type Migrator } from "./migrate/migrator.ts";
export { createApiKeyStore, keyDigest, type Principal } from "./auth/api_keys.ts";
export { SCHEMAS } from "./http/schemas.ts";
