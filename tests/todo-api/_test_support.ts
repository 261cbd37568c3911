/**
 * Helpers of the todo-api end-to-end tests: the real `main.ts` as shipped (the permission flags
 * of `deploy/services.ts`, from the repository root, through `tests/_shipped.ts`), a fresh
 * database per test. PGlite directories go under `./.data`, the only place the shipped grant lets
 * the service read and write; each test removes its own.
 *
 * Running `migrate up` on a new PGlite directory costs a process start, initdb and a few seconds
 * of fsyncs (about 11 s of CPU here, the largest cost of these tests). Tests whose subject is not
 * the migration take a migrated database instead ({@linkcode migratedTarget}): a copy of a
 * directory the real `migrate up` command made once for this set of migrations and kept in the
 * temp dir. Tests of `migrate` itself still run it on an empty directory ({@linkcode target}).
 */
import { cp, mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { sha256Hex } from "@svc/shared/sha256";
import {
  createTestDatabase,
  pgliteVersion,
  type TestDatabase,
} from "../../services/todo-api/_test_support.ts";
import { createMigrator, loadMigrations } from "../../services/todo-api/mod.ts";
import type { CommandResult, ServiceProcess } from "@svc/testing";
import { ROOT, runShipped, startShipped } from "../_shipped.ts";

const ENTRY = new URL("../../services/todo-api/main.ts", import.meta.url).pathname;
export const LISTEN = ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"];
/** Where the PGlite directories of these tests go: inside the shipped grant (`./.data`). */
const DATA_PARENT = `${ROOT}.data`;

/**
 * Runs one `main.ts` command line as shipped to its end, with `env` as its whole environment.
 * A process still running after 60 s is killed (the result says so), so a test fails instead of
 * hanging.
 */
export function run(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return runShipped("todo-api", { args, env });
}

/** Options of {@linkcode startServe}. */
export interface StartServeOptions {
  /** Listener names to wait for. @default {["api"]} */
  listeners?: string[];
  /** Polled until it answers 200; `null` skips the poll. @default {"/healthz"} */
  healthPath?: string | null;
}

/**
 * Starts `main.ts serve <args>` as shipped, with `env` as its whole environment; resolves once
 * it listens and the health path answers.
 */
export function startServe(
  args: string[],
  env: Record<string, string>,
  options: StartServeOptions = {},
): Promise<ServiceProcess> {
  return startShipped("todo-api", { args: ["serve", ...args], env, ...options });
}

/**
 * Runs `main.ts` with every permission, for the template directories only: fixtures kept in the
 * temp dir (shared by every run and checkout, outside the shipped grant), not a process under
 * test. The directories the tests use are copies under {@linkcode DATA_PARENT}.
 */
async function runFixture(args: string[], env: Record<string, string>): Promise<CommandResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ENTRY, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

export interface Target {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** Options of {@linkcode target} and {@linkcode migratedTarget}. */
export interface TargetOptions {
  /**
   * Where the PGlite directory goes; the shipped grant covers `./.data` only.
   * @default {DATA_PARENT}
   */
  parent?: string;
  /**
   * PGlite: start from a copy of a directory initdb already ran in (made once by `migrate
   * status`, which migrates nothing), for tests of what happens before `migrate up`, not of
   * creating a directory. @default {false}
   */
  initdb?: boolean;
}

/** An empty database: a new PGlite directory, or a new database on the Postgres server. */
export async function target(
  backend: "pglite" | "postgres",
  options: TargetOptions = {},
): Promise<Target> {
  if (backend === "pglite") {
    const parent = options.parent ?? DATA_PARENT;
    await Deno.mkdir(parent, { recursive: true });
    const dir = await Deno.makeTempDir({ dir: parent, prefix: "todo_api_e2e_" });
    if (options.initdb) await copyInitdbTemplate(`${dir}/db`);
    return {
      env: { TODOAPI_DATA_DIR: `${dir}/db`, TODOAPI_DATABASE_URL: "" },
      cleanup: () => Deno.remove(dir, { recursive: true }),
    };
  }
  const test: TestDatabase = await createTestDatabase("postgres");
  await test.db.close();
  return { env: { TODOAPI_DATABASE_URL: test.url! }, cleanup: () => test.drop() };
}

/**
 * Makes `dir` a PGlite directory initdb already ran in, no migration applied (a copy of the
 * template `migrate status` made on a new directory).
 */
export async function copyInitdbTemplate(dir: string): Promise<void> {
  await cp(await pgliteTemplate("initdb"), dir, { recursive: true });
}

/**
 * A database every migration is applied to. PGlite: a copy of the directory `main.ts migrate up`
 * made (see {@linkcode pgliteTemplate}); Postgres: a new database migrated in-process (cheap
 * there: no initdb, no process).
 */
export async function migratedTarget(
  backend: "pglite" | "postgres",
  options: TargetOptions = {},
): Promise<Target> {
  if (backend === "postgres") {
    const test = await createTestDatabase("postgres");
    try {
      await createMigrator(test.db, loadMigrations()).up();
    } finally {
      await test.db.close();
    }
    return { env: { TODOAPI_DATABASE_URL: test.url! }, cleanup: () => test.drop() };
  }
  const t = await target("pglite", { ...options, initdb: false });
  await cp(await pgliteTemplate("migrated"), t.env.TODOAPI_DATA_DIR, { recursive: true });
  return t;
}

/** Every file the template directories depend on besides PGlite: migrations and their runner. */
const TEMPLATE_INPUTS = [
  "../../services/todo-api/migrations/",
  "../../services/todo-api/migrate/migrator.ts",
  "../../services/todo-api/store/pglite_db.ts",
  "../../services/todo-api/store/durable_fs.ts",
];

const templates = new Map<string, Promise<string>>();
/** The command that makes each template directory. */
const TEMPLATE_COMMANDS = { initdb: ["migrate", "status"], migrated: ["migrate", "up"] };

/**
 * A PGlite directory the real `main.ts` made (`migrate status` on a new directory: initdb only;
 * `migrate up` on a copy of that one: every migration), kept in the temp dir under a name that
 * hashes the PGlite version and {@linkcode TEMPLATE_INPUTS}, so test files and runs share it and
 * a changed migration makes a new one. One file makes it while the others wait on a lock file
 * (the suite starts several of these files at once; each would otherwise run its own initdb,
 * about 8 s of CPU); made aside and renamed into place, so no file ever copies half a directory.
 */
function pgliteTemplate(kind: keyof typeof TEMPLATE_COMMANDS): Promise<string> {
  let made = templates.get(kind);
  if (made) return made;
  made = (async () => {
    const hash = await inputsHash();
    const path = `${tmpdir()}/todo-api-test-${kind}-${hash}`;
    if (await exists(`${path}/db/PG_VERSION`)) return `${path}/db`;
    // The migrated template starts from the initdb one (taken before the lock: no nested locks).
    const from = kind === "migrated" ? await pgliteTemplate("initdb") : undefined;
    await withFileLock(`${path}.lock`, async () => {
      if (await exists(`${path}/db/PG_VERSION`)) return; // made while this file waited
      const part = await mkdtemp(`${path}.part-`);
      try {
        if (from) await cp(from, `${part}/db`, { recursive: true });
        const out = await runFixture(TEMPLATE_COMMANDS[kind], {
          TODOAPI_DATA_DIR: `${part}/db`,
          TODOAPI_DATABASE_URL: "",
        });
        if (out.code !== 0) throw new Error(`Cannot make the ${kind} template: ${out.stderr}`);
        await rm(`${part}/db.lock`, { force: true });
        await rename(part, path).catch(async (err) => {
          // Another run renamed its copy first (one that took no lock): use that one.
          if (!(await exists(`${path}/db/PG_VERSION`))) throw err;
        });
      } finally {
        await rm(part, { recursive: true, force: true });
      }
    });
    return `${path}/db`;
  })();
  templates.set(kind, made);
  made.catch(() => templates.delete(kind));
  return made;
}

/**
 * Runs `fn` holding an exclusive lock on the file at `path` (created if missing). The lock goes
 * with the open file, so it is released when the file closes, also when this process dies.
 */
async function withFileLock(path: string, fn: () => Promise<void>): Promise<void> {
  using file = await Deno.open(path, { create: true, write: true });
  await file.lock(true);
  await fn();
}

/** A hash of the PGlite version and of the inputs' names and contents (not of where they are). */
async function inputsHash(): Promise<string> {
  const parts: string[] = [pgliteVersion()];
  for (const input of TEMPLATE_INPUTS) {
    const url = new URL(input, import.meta.url);
    const names = input.endsWith("/")
      ? (await Array.fromAsync(Deno.readDir(url))).map((e) => e.name).sort()
      : [""];
    for (const name of names) {
      parts.push(input + name, await Deno.readTextFile(new URL(name, url)));
    }
  }
  return sha256Hex(parts.join("\0")).slice(0, 16);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
