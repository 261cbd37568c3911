/**
 * The command line: `serve | migrate … | keys …`. Returns an exit code instead of exiting, so
 * tests can drive it; `main.ts` runs it through the kit's `runMain`.
 * @module
 */
import { IDENTITY } from "../identity.ts";
import { createLogger } from "@svc/shared/log";
import type { MainIo } from "@svc/shared/main";
import { type EnvLookup, helpRequested, SettingsError } from "@svc/shared/settings";
import { loadConfig, usage } from "../config.ts";
import { DataDirLockedError } from "../store/data_dir_lock.ts";
import { openDb } from "../store/open_db.ts";
import { serve } from "./serve.ts";
import { thrownMessage } from "../thrown.ts";

/**
 * Runs one command line; resolves to the process exit code.
 * @throws {SettingsError} when a flag or variable is invalid or a listen address cannot be used
 * (`runMain` prints it, exit 2).
 */
export async function runCli(args: string[], env: EnvLookup, io: MainIo): Promise<number> {
  if (helpRequested(args)) {
    io.out(usage());
    return 0;
  }
  const { config, positionals } = loadConfig(args, env);
  const [command, ...rest] = positionals;
  if (command === undefined || command === "help") {
    (command === undefined ? io.err : io.out)(usage());
    return command === undefined ? 2 : 0;
  }
  try {
    if (command === "serve") {
      const logger = createLogger({ level: config.logLevel, service: IDENTITY });
      const server = await serve(config, { logger });
      await server.finished;
      return 0;
    }
    if (command !== "migrate" && command !== "keys") {
      io.err(`unknown command ${JSON.stringify(command)}\n\n${usage()}`);
      return 2;
    }
    // The operator commands' modules load only for them, off `serve`'s start.
    if (command === "keys" && config.url !== "") {
      const { keysOverApi } = await import("./keys_api.ts");
      return await keysOverApi(rest, { config, io });
    }
    const db = await openDb({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      pgliteSync: config.pgliteSync,
    });
    try {
      return command === "migrate"
        ? await (await import("./migrate.ts")).migrateCommand(db, rest, { config, io })
        : await (await import("./keys.ts")).keysCommand(db, rest, { config, io });
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
        ? (await import("./keys_api.ts")).lockedAdvice(rest, config, err.serverUrl)
        : undefined;
      if (advice) io.err(advice);
      return 1;
    }
    io.err(`${command}: ${thrownMessage(err)}`);
    return 1;
  }
}
