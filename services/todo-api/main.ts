/**
 * todo-api entry: `main.ts serve | migrate up|down|status | keys create|list|revoke`.
 * @module
 */
import { IDENTITY } from "./identity.ts";
import { runMain, type ServiceMain } from "@svc/shared/main";
import { runCli } from "./cli/run.ts";

/** Runs one command line; resolves to the process exit code. */
export const main: ServiceMain = runCli;

if (import.meta.main) await runMain(main, { name: "todo-api", identity: IDENTITY });
