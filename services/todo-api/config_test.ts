import assert from "node:assert/strict";
import { loadConfig } from "./config.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("defaults: :8080, :9090, authorization on, PGlite in ./.data/todo-api", () => {
  const { config, positionals } = loadConfig(["serve"], env({}));
  assert.deepEqual(positionals, ["serve"]);
  assert.equal(config.addr, ":8080");
  assert.equal(config.metricsAddr, ":9090");
  assert.equal(config.authzEnabled, true);
  assert.equal(config.databaseUrl, "");
  assert.equal(config.dataDir, "./.data/todo-api");
  assert.equal(config.keyCacheTtlMs, 5000);
});

Deno.test("TODOAPI_* variables apply and flags win over them", () => {
  const vars = env({
    TODOAPI_ADDR: "127.0.0.1:1",
    TODOAPI_AUTHZ_ENABLED: "false",
    TODOAPI_DATABASE_URL: "postgres://u:p@h/db",
  });
  const fromEnv = loadConfig(["serve"], vars).config;
  assert.equal(fromEnv.addr, "127.0.0.1:1");
  assert.equal(fromEnv.authzEnabled, false);
  assert.equal(fromEnv.databaseUrl, "postgres://u:p@h/db");
  const fromFlags = loadConfig(["serve", "--addr=127.0.0.1:2", "--authz-enabled"], vars).config;
  assert.equal(fromFlags.addr, "127.0.0.1:2");
  assert.equal(fromFlags.authzEnabled, true);
});

Deno.test("bad listen addresses and body limits are refused without echoing secrets", () => {
  assert.throws(() => loadConfig(["--addr", "nope"], env({})), /addr/);
  assert.throws(() => loadConfig(["--max-body-bytes", "0"], env({})), /max-body-bytes/);
  assert.throws(() => loadConfig(["--bogus"], env({})));
});

Deno.test("--shutdown-delay: 0 by default, Go durations from flag or TODOAPI_SHUTDOWN_DELAY", () => {
  assert.equal(loadConfig(["serve"], env({})).config.shutdownDelayMs, 0);
  const vars = env({ TODOAPI_SHUTDOWN_DELAY: "2s" });
  assert.equal(loadConfig(["serve"], vars).config.shutdownDelayMs, 2000);
  assert.equal(
    loadConfig(["serve", "--shutdown-delay", "1m"], vars).config.shutdownDelayMs,
    60_000,
  );
  assert.throws(() => loadConfig(["serve", "--shutdown-delay", "soon"], env({})), /shutdown-delay/);
});
