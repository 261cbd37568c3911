/**
 * Helpers of the todo-api end-to-end tests: the real `main.ts`, a fresh database per test.
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

export const ENTRY = new URL("../../services/todo-api/main.ts", import.meta.url).pathname;
export const LISTEN = ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"];

export async function run(args: string[], env: Record<string, string>) {
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
  /** Where the PGlite directory goes (e.g. under `./.data` for the deployed grant). */
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
    if (options.parent) await Deno.mkdir(options.parent, { recursive: true });
    const dir = await Deno.makeTempDir({ dir: options.parent, prefix: "todo_api_e2e_" });
    if (options.initdb) await cp(await pgliteTemplate("initdb"), `${dir}/db`, { recursive: true });
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
 * `migrate up`: every migration), kept in the temp dir under a name that hashes the PGlite
 * version and {@linkcode TEMPLATE_INPUTS}, so test files and runs share it and a changed
 * migration makes a new one. Made aside and renamed into place: parallel files never copy half a
 * directory.
 */
function pgliteTemplate(kind: keyof typeof TEMPLATE_COMMANDS): Promise<string> {
  let made = templates.get(kind);
  if (made) return made;
  made = (async () => {
    const hash = await inputsHash();
    const path = `${tmpdir()}/todo-api-test-${kind}-${hash}`;
    if (await exists(`${path}/db/PG_VERSION`)) return `${path}/db`;
    const part = await mkdtemp(`${path}.part-`);
    try {
      const out = await run(TEMPLATE_COMMANDS[kind], {
        TODOAPI_DATA_DIR: `${part}/db`,
        TODOAPI_DATABASE_URL: "",
      });
      if (out.code !== 0) throw new Error(`Cannot make the ${kind} template: ${out.stderr}`);
      await rm(`${part}/db.lock`, { force: true });
      await rename(part, path).catch(async (err) => {
        // Another file renamed its copy first: use that one.
        if (!(await exists(`${path}/db/PG_VERSION`))) throw err;
      });
    } finally {
      await rm(part, { recursive: true, force: true });
    }
    return `${path}/db`;
  })();
  templates.set(kind, made);
  return made;
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
