import assert from "node:assert/strict";
import { runMain } from "@svc/shared/main";
import { SettingsError } from "@svc/shared/settings";
import { resolveSettings, SETTINGS, workerCount } from "./settings.ts";
import { main } from "./main.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("defaults: :8080, :9090, authorization on, PGlite in ./.data/todo-api", () => {
  const { settings, positionals } = resolveSettings(["serve"], env({}));
  assert.deepEqual(positionals, ["serve"]);
  assert.equal(settings.addr, ":8080");
  assert.equal(settings.metricsAddr, ":9090");
  assert.equal(settings.authzEnabled, true);
  assert.equal(settings.databaseUrl, "");
  assert.equal(settings.dataDir, "./.data/todo-api");
  assert.equal(settings.keyCacheTtlMs, 5000);
});

Deno.test("TODOAPI_* variables apply and flags win over them", () => {
  const vars = env({
    TODOAPI_ADDR: "127.0.0.1:1",
    TODOAPI_AUTHZ_ENABLED: "false",
    TODOAPI_DATABASE_URL: "postgres://u:p@h/db",
  });
  const fromEnv = resolveSettings(["serve"], vars).settings;
  assert.equal(fromEnv.addr, "127.0.0.1:1");
  assert.equal(fromEnv.authzEnabled, false);
  assert.equal(fromEnv.databaseUrl, "postgres://u:p@h/db");
  const fromFlags =
    resolveSettings(["serve", "--addr=127.0.0.1:2", "--authz-enabled"], vars).settings;
  assert.equal(fromFlags.addr, "127.0.0.1:2");
  assert.equal(fromFlags.authzEnabled, true);
});

Deno.test("bad listen addresses and body limits are refused without echoing secrets", () => {
  assert.throws(() => resolveSettings(["--addr", "nope"], env({})), /addr/);
  assert.throws(() => resolveSettings(["--max-body-bytes", "0"], env({})), /max-body-bytes/);
  assert.throws(() => resolveSettings(["--bogus"], env({})));
});

Deno.test("a database URL the client cannot parse is refused without printing the password", async (t) => {
  const secrets = ["Pa#ss", "Pa", "ss@h"];
  for (
    const url of ["postgres://u:Pa#ss@h/db", "postgres://u:Pa%zzss@h/db", "mysql://u:Pa#ss@h/db"]
  ) {
    await t.step(url.replace(/:[^:@]*@/, ":***@"), () => {
      assert.throws(
        () => resolveSettings(["serve"], env({ TODOAPI_DATABASE_URL: url })),
        (e: Error) => {
          assert.ok(e instanceof SettingsError);
          assert.equal(e.key, "database_url");
          assert.match(e.message, /TODOAPI_DATABASE_URL/);
          for (const s of secrets) assert.ok(!e.message.includes(s), e.message);
          return true;
        },
      );
    });
  }
  await t.step("main exits 2 with one line that names the variable", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMain(main, {
      name: "todo-api",
      args: ["migrate", "status"],
      env: env({ TODOAPI_DATABASE_URL: "postgres://u:Pa#ss@h/db" }),
      io: { out: (l) => out.push(l), err: (l) => err.push(l) },
      exit: () => {},
    });
    assert.equal(code, 2);
    assert.deepEqual(out, []);
    assert.equal(err.length, 1);
    assert.match(err[0], /^todo-api: Cannot read setting "database_url" from environment variable/);
    assert.ok(!err[0].includes("Pa#ss") && !err[0].includes("ss@h"), err[0]);
  });
  await t.step("a percent-encoded password is accepted", () => {
    const url = "postgres://u:Pa%23ss@h/db";
    assert.equal(resolveSettings([], env({ TODOAPI_DATABASE_URL: url })).settings.databaseUrl, url);
  });
});

Deno.test("--help lists every setting with its flag, variable and default, secrets without", async () => {
  const out: string[] = [];
  const code = await main(["--help"], env({}), { out: (l) => out.push(l), err: () => {} });
  assert.equal(code, 0);
  const help = out.join("\n");
  for (const row of SETTINGS.rows) {
    assert.ok(help.includes(`--${row.flag} `), row.key);
    for (const name of row.env) assert.ok(help.includes(name), name);
  }
  assert.match(help, /--addr string\n {6}API listen address host:port \(default ":8080"\)/);
  // A secret shows no default.
  const secretBlock = "--database-url string\n      Postgres server URL (postgres://…); empty " +
    "uses embedded PGlite in --data-dir\n      env TODOAPI_DATABASE_URL\n";
  assert.ok(help.includes(secretBlock), help);
});

Deno.test("main exits 2 on a bad flag and with usage when no command is given", async () => {
  const err: string[] = [];
  const io = { out: () => {}, err: (l: string) => err.push(l) };
  assert.equal(
    await runMain(main, { name: "todo-api", args: ["--bogus"], env: env({}), io, exit: () => {} }),
    2,
  );
  assert.deepEqual(err, ['todo-api: Cannot parse flags: unknown flag "--bogus"']);
  assert.equal(await main([], env({}), io), 2);
  assert.match(err[1], /^Usage:/);
});

Deno.test("--shutdown-delay: 0 by default, Go durations from flag or TODOAPI_SHUTDOWN_DELAY", () => {
  assert.equal(resolveSettings(["serve"], env({})).settings.shutdownDelayMs, 0);
  const vars = env({ TODOAPI_SHUTDOWN_DELAY: "2s" });
  assert.equal(resolveSettings(["serve"], vars).settings.shutdownDelayMs, 2000);
  assert.equal(
    resolveSettings(["serve", "--shutdown-delay", "1m"], vars).settings.shutdownDelayMs,
    60_000,
  );
  assert.throws(
    () => resolveSettings(["serve", "--shutdown-delay", "soon"], env({})),
    /shutdown-delay/,
  );
});

Deno.test("--pglite-sync: on by default, off from flag or TODOAPI_PGLITE_SYNC", () => {
  assert.equal(resolveSettings(["serve"], env({})).settings.pgliteSync, true);
  assert.equal(
    resolveSettings(["serve", "--pglite-sync=false"], env({})).settings.pgliteSync,
    false,
  );
  const off = env({ TODOAPI_PGLITE_SYNC: "false" });
  assert.equal(resolveSettings(["serve"], off).settings.pgliteSync, false);
  assert.throws(
    () => resolveSettings(["serve"], env({ TODOAPI_PGLITE_SYNC: "maybe" })),
    SettingsError,
  );
  assert.match(SETTINGS.help(), /--pglite-sync[^\n]*\n[^\n]*power loss/);
});

Deno.test("keys create: repeated --role flags combine; a repeated --subject is refused", () => {
  const args = ["keys", "create", "--subject", "a", "--role", "user", "--role", "admin"];
  assert.deepEqual(resolveSettings(args, env({})).settings.roles, ["user", "admin"]);
  const mixed = ["keys", "create", "--subject", "a", "--role", "user,admin", "--role=auditor"];
  assert.deepEqual(resolveSettings(mixed, env({})).settings.roles, ["user", "admin", "auditor"]);
  assert.throws(
    () => resolveSettings(["keys", "create", "--subject", "a", "--subject", "b"], env({})),
    (e: Error) => {
      assert.ok(e instanceof SettingsError);
      assert.match(e.message, /flag "--subject" is given more than once/);
      return true;
    },
  );
});

Deno.test("workerCount(): one per core on Postgres, one on PGlite, more refused on PGlite", async (t) => {
  const postgres = "postgres://u:p@h/db";
  await t.step("0 (the default) is the core count on Postgres", () => {
    const { settings } = resolveSettings(["serve"], env({ TODOAPI_DATABASE_URL: postgres }));
    assert.equal(settings.workers, 0);
    assert.equal(workerCount(settings, 2), 2);
    assert.equal(workerCount(settings, 16), 16);
    assert.equal(workerCount(settings, 0), 1, "an unknown core count is one");
  });
  await t.step("0 is 1 on PGlite", () => {
    assert.equal(workerCount(resolveSettings(["serve"], env({})).settings, 16), 1);
  });
  await t.step("an explicit count wins, from the flag or TODOAPI_WORKERS", () => {
    const vars = env({ TODOAPI_DATABASE_URL: postgres, TODOAPI_WORKERS: "3" });
    assert.equal(workerCount(resolveSettings(["serve"], vars).settings, 16), 3);
    assert.equal(workerCount(resolveSettings(["serve", "--workers", "1"], vars).settings, 16), 1);
    assert.equal(
      workerCount(resolveSettings(["serve", "--workers", "256"], vars).settings, 2),
      256,
    );
  });
  await t.step("1 is allowed on PGlite, 2 is a settings error naming the setting", () => {
    assert.equal(
      workerCount(resolveSettings(["serve", "--workers", "1"], env({})).settings, 16),
      1,
    );
    for (
      const settings of [
        resolveSettings(["serve", "--workers", "2"], env({})).settings,
        resolveSettings(["serve"], env({ TODOAPI_WORKERS: "2" })).settings,
      ]
    ) {
      assert.throws(() => workerCount(settings, 16), (e: Error) => {
        assert.ok(e instanceof SettingsError);
        assert.equal(e.key, "workers");
        assert.match(e.message, /PGlite/);
        return true;
      });
    }
  });
  await t.step("below 0 and above 256 are refused", () => {
    assert.throws(() => resolveSettings(["serve", "--workers", "-1"], env({})), /workers/);
    assert.throws(() => resolveSettings(["serve", "--workers", "257"], env({})), /workers/);
  });
});
