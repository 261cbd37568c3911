/**
 * todo-api as the benchmarks run it: `main.ts serve` in its shipped form (the flags of
 * `deploy/services.ts`, from the repository root) on a Postgres database, at the default log
 * level (an access-log line per request, as deployed, read and dropped by the runner).
 */
import { type ServiceProcess, startService } from "@svc/testing";
import { ROOT, shippedForm } from "../../_shipped.ts";

/** Options of {@linkcode startApi}. */
export interface ApiOptions {
  /** `serve --workers`. */
  workers: number;
  /** Pool size per worker (`TODOAPI_DB_POOL_SIZE`), as deployed. */
  pool: number;
  /** More environment (settings under test, `DENO_V8_FLAGS`). */
  env?: Record<string, string>;
  /** More Deno flags after the shipped ones (`--cpu-prof`). */
  flags?: string[];
  /** The tree to run it from (another checkout, measured beside this one). @default {ROOT} */
  root?: string;
}

/** Starts todo-api on `databaseUrl` and resolves once it answers. */
export async function startApi(databaseUrl: string, options: ApiOptions): Promise<ServiceProcess> {
  const form = await shippedForm("todo-api");
  return await startService({
    entry: form.entry,
    permissions: [...form.flags, ...options.flags ?? []],
    cwd: options.root ?? ROOT,
    args: [
      "serve",
      "--addr",
      "127.0.0.1:0",
      "--metrics-addr",
      "127.0.0.1:0",
      "--workers",
      String(options.workers),
    ],
    env: {
      TODOAPI_DATABASE_URL: databaseUrl,
      TODOAPI_DB_POOL_SIZE: String(options.pool),
      ...options.env,
    },
    timeoutMs: 60_000,
    outputLimit: 64 * 1024,
  });
}
