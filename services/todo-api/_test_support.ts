/**
 * Runs a suite of in-process API cases against each backend: PGlite always, a Postgres server
 * when TEST_DATABASE_URL is set (ignored otherwise). Each backend gets its own database for the
 * whole file (PGlite: one in-memory instance; Postgres: a uniquely named database dropped at the
 * end), so parallel test files never collide; tables are emptied before every case.
 *
 * A PGlite test database is loaded from a tarball of a freshly initdb'd one instead of running
 * initdb again (about 3.5 s instead of 8.5 s of CPU in a fresh test isolate, most of the cost of
 * an in-process suite). The tarball is made once per PGlite version and kept in the temp dir, so
 * every test file of every run shares it.
 */
import postgres from "postgres";
import { tmpdir } from "node:os";
import {
  createApiKeyStore,
  createApp,
  createMigrator,
  type Db,
  loadMigrations,
  openPgliteDb,
  openPostgresDb,
} from "./mod.ts";
import type { AppDeps } from "./app.ts";
import { localInfo } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { skipSuite } from "@svc/testing";

/** The Postgres server for tests, or undefined (those tests are ignored). */
export const TEST_DATABASE_URL = Deno.env.get("TEST_DATABASE_URL") || undefined;

/**
 * Whether to ignore a test of `module` (its `import.meta.url`) that needs the Postgres server:
 * true without TEST_DATABASE_URL, after saying so once on stderr.
 */
export function withoutPostgres(module: string, part?: string): boolean {
  const needs = TEST_DATABASE_URL ? undefined : "TEST_DATABASE_URL (a Postgres server)";
  return skipSuite({ module, part, needs });
}

/** A database of one backend, private to the caller. */
export interface TestDatabase {
  backend: "pglite" | "postgres";
  db: Db;
  /** For Postgres: the URL of the private database (e.g. to give a child process). */
  url?: string;
  drop(): Promise<void>;
}

/** The PGlite package as resolved (`pglite@0.5.16`): the data directory format follows it. */
export function pgliteVersion(): string {
  const resolved = import.meta.resolve("@electric-sql/pglite");
  return /pglite@[\w.-]+/.exec(resolved)?.[0] ?? resolved.replace(/\W+/g, "_");
}

/** Where the initdb'd PGlite tarball is kept: one per PGlite version. */
function pgliteTemplatePath(): string {
  return `${tmpdir()}/todo-api-test-initdb-${pgliteVersion()}.tar`;
}

let pgliteTemplate: Promise<Blob> | undefined;

/**
 * The tarball of an empty, initdb'd PGlite database (for `loadDataDir`), read from the temp dir
 * or made there: by one test file, while the others that start at the same time wait on a lock
 * file instead of each running its own initdb.
 */
export function emptyPgliteTarball(): Promise<Blob> {
  return pgliteTemplate ??= (async () => {
    const path = pgliteTemplatePath();
    const read = async () => {
      try {
        return new Blob([await Deno.readFile(path)]);
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
    };
    const ready = await read();
    if (ready) return ready;
    // The lock goes with the open file: closing it (or this process dying) releases it.
    using lock = await Deno.open(`${path}.lock`, { create: true, write: true });
    await lock.lock(true);
    const madeMeanwhile = await read();
    if (madeMeanwhile) return madeMeanwhile;
    const db = await openPgliteDb({ dataDir: "memory://" });
    const tarball = await db.dump();
    await db.close();
    // Written aside and renamed: a file running in parallel never reads half a tarball.
    const part = `${path}.${crypto.randomUUID()}.part`;
    await Deno.writeFile(part, new Uint8Array(await tarball.arrayBuffer()));
    await Deno.rename(part, path);
    return tarball;
  })();
}

/** Opens an empty in-memory PGlite database from the initdb'd tarball. */
async function openEmptyPglite(): Promise<Db> {
  const tarball = await emptyPgliteTarball();
  try {
    return await openPgliteDb({ dataDir: "memory://", loadDataDir: tarball });
  } catch {
    // A tarball this PGlite cannot load (damaged on disk): drop it, run initdb instead.
    await Deno.remove(pgliteTemplatePath()).catch(() => {});
    pgliteTemplate = undefined;
    return await openPgliteDb({ dataDir: "memory://" });
  }
}

/** Creates an empty private database (not migrated). */
export async function createTestDatabase(backend: "pglite" | "postgres"): Promise<TestDatabase> {
  if (backend === "pglite") {
    const db = await openEmptyPglite();
    return { backend, db, drop: () => db.close() };
  }
  const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  const name = `todo_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const db = openPostgresDb(url.href);
  return {
    backend,
    db,
    url: url.href,
    async drop() {
      await db.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** What each case receives. */
export interface SuiteEnv {
  backend: "pglite" | "postgres";
  db: Db;
  /** Creates a key and returns it. */
  key(subject: string, roles: string[]): Promise<string>;
  /** Builds an app on this database with extra deps. */
  app(extra?: Partial<AppDeps>): (req: Request) => Promise<Response>;
}

/** Connection info for in-process calls. */
const INFO: Deno.ServeHandlerInfo = localInfo();

/** Registers one Deno.test per backend running every case as a step. */
export function backendSuite(
  module: string,
  name: string,
  cases: Record<string, (env: SuiteEnv) => Promise<void>>,
): void {
  for (const backend of ["pglite", "postgres"] as const) {
    Deno.test({
      name: `${name} [${backend}]`,
      ignore: backend === "postgres" && withoutPostgres(module, "postgres backend"),
      // PGlite keeps WASM timers and handles alive across steps.
      sanitizeOps: false,
      sanitizeResources: false,
      async fn(t) {
        const test = await createTestDatabase(backend);
        try {
          const migrator = createMigrator(test.db, loadMigrations());
          await migrator.up();
          const keys = createApiKeyStore(test.db);
          const env: SuiteEnv = {
            backend,
            db: test.db,
            async key(subject, roles) {
              return (await keys.create({ subject, roles })).key;
            },
            app(extra = {}) {
              const handler = createApp({
                db: test.db,
                migrator,
                logger: createLogger({ write: () => {} }),
                keyCacheTtlMs: 0,
                ...extra,
              });
              return async (req) => await handler(req, INFO);
            },
          };
          for (const [caseName, fn] of Object.entries(cases)) {
            await test.db.exec("truncate todos, api_keys");
            await t.step(caseName, () => fn(env));
          }
        } finally {
          await test.drop();
        }
      },
    });
  }
}

/** A request to the in-process app. */
export function call(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; raw?: string | Uint8Array; headers?: HeadersInit } = {},
): Request {
  const headers = new Headers(options.headers);
  if (options.key) headers.set("x-api-key", options.key);
  let body: BodyInit | undefined;
  if (options.raw !== undefined) {
    body = options.raw as BodyInit;
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers.set("content-type", "application/json");
  }
  return new Request(`http://127.0.0.1:8080${path}`, { method, headers, body });
}
