/**
 * todo-api entry: `main.ts serve | migrate up|down|status | keys create|list|revoke`. Help, the
 * settings, the command, its exit code: `serve.ts` wires and starts the server, `commands/` holds
 * the operator commands. Each command loads only its own modules, so `keys` and `migrate` do not
 * load the server and `serve` does not load them.
 * @module
 */
import { IDENTITY } from "./identity.ts";
import { createLogger } from "@svc/shared/log";
import { type MainIo, runMain } from "@svc/shared/main";
import { type EnvLookup, helpRequested, SettingsError } from "@svc/shared/settings";
import { resolveSettings, usage } from "./settings.ts";
import { DataDirLockedError } from "./store/data_dir_lock.ts";
import { openDb } from "./store/open_db.ts";
import { thrownMessage } from "./thrown.ts";

/**
 * Runs one command line; resolves to the process exit code.
 * @throws {SettingsError} when a flag or variable is invalid or a listen address cannot be used
 * (`runMain` prints it, exit 2).
 */
export async function main(args: string[], env: EnvLookup, io: MainIo): Promise<number> {
  if (helpRequested(args)) {
    io.out(usage());
    return 0;
  }
  const { settings, positionals } = resolveSettings(args, env);
  const [command, ...rest] = positionals;
  if (command === undefined || command === "help") {
    (command === undefined ? io.err : io.out)(usage());
    return command === undefined ? 2 : 0;
  }
  try {
    if (command === "serve") {
      const logger = createLogger({ level: settings.logLevel, service: IDENTITY });
      const { serve } = await import("./serve.ts");
      const server = await serve(settings, { logger });
      await server.finished;
      return 0;
    }
    if (command !== "migrate" && command !== "keys") {
      io.err(`unknown command ${JSON.stringify(command)}\n\n${usage()}`);
      return 2;
    }
    if (command === "keys" && settings.url !== "") {
      const { keysOverApi } = await import("./commands/keys_api.ts");
      return await keysOverApi(rest, { settings, io });
    }
    const db = await openDb({
      databaseUrl: settings.databaseUrl,
      dataDir: settings.dataDir,
      pgliteSync: settings.pgliteSync,
    });
    try {
      return command === "migrate"
        ? await (await import("./commands/migrate.ts")).migrateCommand(db, rest, { settings, io })
        : await (await import("./commands/keys.ts")).keysCommand(db, rest, { settings, io });
    } finally {
      await db.close();
    }
  } catch (err) {
    // A setting that cannot work (an address in use, workers on PGlite): runMain prints the
    // kit's one line and exits 2.
    if (err instanceof SettingsError) throw err;
    if (err instanceof DataDirLockedError) {
      io.err(err.message);
      // `keys` while `serve` holds the embedded database: the same through the server's API.
      const advice = command === "keys"
        ? (await import("./commands/keys_api.ts")).lockedAdvice(rest, settings, err.serverUrl)
        : undefined;
      if (advice) io.err(advice);
      return 1;
    }
    io.err(`${command}: ${thrownMessage(err)}`);
    return 1;
  }
}

if (import.meta.main) await runMain(main, { name: "todo-api", identity: IDENTITY });
