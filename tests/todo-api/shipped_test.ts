/**
 * todo-api as shipped: the permission flags of `deploy/services.ts`, from the repository root,
 * on embedded PGlite (a data directory inside the `./.data` grant) and on a Postgres URL without
 * a user (the user from PG* variables, or the client's default: the OS user's). It reaches ready
 * after `migrate up`; database failures say what happened and what to change, under the real
 * grant; a listener that cannot start names its setting.
 */
import assert from "node:assert/strict";
import { createTestDatabase, TEST_DATABASE_URL } from "../../services/todo-api/_test_support.ts";
import { runCommand } from "@svc/testing";
import { ROOT, runShipped, shippedForm, startShipped, takenPort } from "../_shipped.ts";
import { migratedTarget } from "./_test_support.ts";

const LISTEN = ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"];
const URL_SETTING = "--database-url / TODOAPI_DATABASE_URL";

/** A PGlite data directory inside the shipped grant (`./.data`), removed afterwards. */
async function withDataDir(body: (dir: string) => Promise<void>): Promise<void> {
  await Deno.mkdir(`${ROOT}.data`, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: `${ROOT}.data`, prefix: "todo_api_shipped_" });
  try {
    await body(`./.data/${dir.split("/").pop()}/db`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function migrateThenServe(env: Record<string, string>): Promise<void> {
  const up = await runShipped("todo-api", { args: ["migrate", "up"], env });
  assert.equal(up.code, 0, up.stderr);
  const svc = await startShipped("todo-api", {
    args: ["serve", ...LISTEN],
    env,
    listeners: ["api", "metrics"],
    // Listening comes first, the datastore opens behind it: up is ready here.
    healthPath: "/readyz",
  });
  try {
    const ready = await fetch(`${svc.url}/readyz`);
    assert.equal(ready.status, 200, await ready.text());
    const anon = await fetch(`${svc.url}/v1/todos`);
    assert.equal(anon.status, 401); // serving, behind its keys
    await anon.body?.cancel();
  } finally {
    assert.equal(await svc.stop(), 0, svc.output());
  }
}

Deno.test({
  name: "todo-api as shipped on PGlite: migrate up, then serve is ready",
  sanitizeResources: false,
  async fn() {
    await withDataDir((dir) => migrateThenServe({ TODOAPI_DATA_DIR: dir }));
  },
});

/** The test server's URL for a fresh database, with its user and password taken out. */
function withoutUser(url: string): { url: string; user: string; password: string } {
  const u = new URL(url);
  const out = {
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
  u.username = "";
  u.password = "";
  return { url: u.href, ...out };
}

Deno.test({
  name: "todo-api as shipped on a Postgres URL without a user (PGUSER/PGPASSWORD) is ready",
  ignore: !TEST_DATABASE_URL,
  sanitizeResources: false,
  async fn() {
    const db = await createTestDatabase("postgres");
    await db.db.close();
    try {
      const { url, user, password } = withoutUser(db.url!);
      assert.doesNotMatch(url, /@/);
      await migrateThenServe({ TODOAPI_DATABASE_URL: url, PGUSER: user, PGPASSWORD: password });
    } finally {
      await db.drop();
    }
  },
});

Deno.test({
  name: "todo-api as shipped: database failures say what happened and what to change",
  ignore: !TEST_DATABASE_URL,
  async fn(t) {
    const server = new URL(TEST_DATABASE_URL!);
    const hostPort = `${server.hostname}:${server.port || 5432}`;
    // One process at a time: stderr is compared whole, and deno processes started together can
    // print "Blocking waiting for file lock on node_modules directory" first.
    const status = (env: Record<string, string>) =>
      runShipped("todo-api", { args: ["migrate", "status"], env });
    await t.step("connection refused, URL without a user", async () => {
      const out = await status({ TODOAPI_DATABASE_URL: "postgres://127.0.0.1:1/todo" });
      assert.equal(
        out.stderr,
        `migrate status: cannot connect to the database server (ECONNREFUSED): check the host ` +
          `and port of ${URL_SETTING}\n`,
      );
      assert.equal(out.code, 1);
    });
    await t.step("no user anywhere: the client's default (the OS user) is refused", async () => {
      const out = await status({ TODOAPI_DATABASE_URL: `postgres://${hostPort}/postgres` });
      assert.match(
        out.stderr,
        new RegExp(
          `^migrate status: the database server refused the login \\(.*"[^"]+".*\\): check the ` +
            `user and password of ${URL_SETTING} \\(or PGUSER / PGPASSWORD when the URL has ` +
            `none\\)\\n$`,
        ),
      );
      assert.equal(out.code, 1);
    });
    await t.step("wrong password", async () => {
      const out = await status({
        TODOAPI_DATABASE_URL: `postgres://${hostPort}/postgres`,
        PGUSER: decodeURIComponent(server.username),
        PGPASSWORD: "not-the-password",
      });
      assert.match(out.stderr, /^migrate status: the database server refused the login \(/);
      assert.doesNotMatch(out.stderr, /not-the-password/);
      assert.equal(out.code, 1);
    });
    await t.step("database missing", async () => {
      const missing = new URL(TEST_DATABASE_URL!);
      missing.pathname = "/todo_shipped_no_such_db";
      const out = await status({ TODOAPI_DATABASE_URL: missing.href });
      assert.equal(
        out.stderr,
        `migrate status: the database does not exist (database "todo_shipped_no_such_db" does ` +
          `not exist): create it, or change the database name of ${URL_SETTING}\n`,
      );
      assert.equal(out.code, 1);
    });
    await t.step("without the sys grant: the missing permission, not a parse error", async () => {
      // An older deployment's flags: the client cannot default the user name (the OS user's).
      const form = await shippedForm("todo-api");
      const out = await runCommand(
        Deno.execPath(),
        [
          "run",
          ...form.flags.filter((f) => !f.startsWith("--allow-sys")),
          form.entry,
          "migrate",
          "status",
        ],
        {
          env: { TODOAPI_DATABASE_URL: `postgres://${hostPort}/postgres` },
          clearEnv: true,
          cwd: ROOT,
        },
      );
      assert.equal(
        out.stderr,
        `migrate: Cannot open datastore: the Postgres client needs a permission to default a ` +
          `setting the URL leaves out (Requires env access to "USERNAME"): put the user in ` +
          `TODOAPI_DATABASE_URL, set PGUSER, or grant --allow-sys=uid,gid,userInfo (the OS user)\n`,
      );
      assert.equal(out.code, 1);
    });
    await t.step("URL malformed (exit 2, the value never printed)", async () => {
      const out = await status({ TODOAPI_DATABASE_URL: "postgres://u:Pa#ss@h/db" });
      assert.match(
        out.stderr,
        /^todo-api: Cannot read setting "database_url" from environment variable TODOAPI_DATABASE_URL: expected postgres:/,
      );
      assert.doesNotMatch(out.stderr, /Pa#ss/);
      assert.equal(out.code, 2);
    });
  },
});

Deno.test({
  name: "todo-api as shipped: a datastore that cannot be opened after listening ends serve with " +
    "its one line, exit 1 (one isolate and workers)",
  async fn(t) {
    // An older deployment's flags (no sys grant) and a URL without a user: the Postgres client,
    // loaded once serve listens, cannot default the user name. No server is contacted.
    const form = await shippedForm("todo-api");
    for (const workers of ["1", "2"]) {
      await t.step(`--workers ${workers}`, async () => {
        const out = await runCommand(
          Deno.execPath(),
          [
            "run",
            ...form.flags.filter((f) => !f.startsWith("--allow-sys")),
            form.entry,
            "serve",
            ...LISTEN,
            "--workers",
            workers,
          ],
          {
            env: { TODOAPI_DATABASE_URL: "postgres://127.0.0.1:1/postgres" },
            clearEnv: true,
            cwd: ROOT,
          },
        );
        assert.match(out.stdout, /"msg":"server_listening"/, "it listened first");
        assert.equal(
          out.stderr,
          `serve: Cannot open datastore: the Postgres client needs a permission to default a ` +
            `setting the URL leaves out (Requires env access to "USERNAME"): put the user in ` +
            `TODOAPI_DATABASE_URL, set PGUSER, or grant --allow-sys=uid,gid,userInfo (the OS ` +
            `user)\n`,
        );
        assert.equal(out.code, 1);
      });
    }
  },
});

Deno.test({
  name: "todo-api as shipped: an address in use names the setting to change",
  sanitizeResources: false,
  async fn(t) {
    // A migrated directory inside the grant: serve opens it before it listens (no initdb here).
    const db = await migratedTarget("pglite", { parent: `${ROOT}.data` });
    const dir = db.env.TODOAPI_DATA_DIR;
    try {
      const cases: [string, string, string, string[]][] = [
        ["api", "--addr", "TODOAPI_ADDR", ["--metrics-addr", "127.0.0.1:0"]],
        ["metrics", "--metrics-addr", "TODOAPI_METRICS_ADDR", ["--addr", "127.0.0.1:0"]],
      ];
      for (const [listener, flag, variable, others] of cases) {
        await t.step(listener, async () => {
          const taken = takenPort();
          try {
            const out = await runShipped("todo-api", {
              args: ["serve", ...others, flag, taken.addr],
              env: { TODOAPI_DATA_DIR: dir },
            });
            const lines = out.stderr.split("\n").filter((l) => l && !l.startsWith("{"));
            assert.deepEqual(lines, [
              `todo-api: Cannot listen on ${taken.addr} (${listener}): the address is already ` +
              `in use (change ${flag} / ${variable})`,
            ]);
            assert.equal(out.code, 2);
          } finally {
            taken.close();
          }
        });
      }
    } finally {
      await db.cleanup();
    }
  },
});

Deno.test({
  name: "todo-api as shipped: a data directory that cannot be one (a file, a path through one, " +
    "a lock that cannot be opened, outside the grant) ends every command at once with one line " +
    "naming the setting, exit 2",
  async fn(t) {
    await Deno.mkdir(`${ROOT}.data`, { recursive: true });
    const dir = await Deno.makeTempDir({ dir: `${ROOT}.data`, prefix: "todo_api_data_dir_" });
    const outside = await Deno.makeTempDir({ prefix: "todo_api_outside_" });
    const rel = `./.data/${dir.split("/").pop()}`;
    const change = "(change --data-dir / TODOAPI_DATA_DIR)";
    try {
      await Deno.writeTextFile(`${dir}/file`, "not a directory\n");
      // A directory where the lock file goes: opening the lock fails, as it does for a user
      // without write access to the parent (which a test run as root cannot be).
      await Deno.mkdir(`${dir}/locked.lock`);
      const cases: [string, string, string][] = [
        ["a regular file", `${rel}/file`, "it is not a directory"],
        [
          "a path through a file",
          `${rel}/file/db`,
          "a part of its path is a file, not a directory",
        ],
        [
          "its lock file cannot be opened",
          `${rel}/locked`,
          `its lock file ${rel}/locked.lock cannot be opened (it is a directory)`,
        ],
        ...[`${outside}/db`, `${outside}/missing/db`].map((path): [string, string, string] => [
          `outside the ./.data grant: ${path.endsWith("missing/db") ? "parent missing" : "exists"}`,
          path,
          "the process has no permission to read and write there (the deployed grant: ./.data)",
        ]),
      ];
      for (const [what, path, why] of cases) {
        await t.step(what, async () => {
          // serve with the flag, the operator commands with the variable: one process at a time
          // (stderr is compared whole).
          const runs: [string, string[], Record<string, string>][] = [
            ["serve", ["serve", ...LISTEN, "--data-dir", path], {}],
            ["migrate up", ["migrate", "up"], { TODOAPI_DATA_DIR: path }],
            ["keys create", ["keys", "create", "--subject", "a", "--role", "user"], {
              TODOAPI_DATA_DIR: path,
            }],
          ];
          for (const [name, args, env] of runs) {
            // Bounded: before the fix, PGlite spun for ~10 s on a file, then printed
            // "[object Object]".
            const out = await runShipped("todo-api", { args, env, limitMs: 20_000 });
            assert.equal(
              out.stderr,
              `todo-api: Cannot open data directory ${path}: ${why} ${change}\n`,
              name,
            );
            assert.equal(out.code, 2, name);
            assert.doesNotMatch(out.stdout, /server_listening/, name);
          }
        });
      }
      // Nothing was made beside the file or outside the grant (no lock file, no directory).
      assert.deepEqual(
        (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort(),
        ["file", "locked.lock"],
      );
      assert.deepEqual(await Array.fromAsync(Deno.readDir(outside)), []);
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    }
  },
});
