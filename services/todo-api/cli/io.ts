/** Where commands write: the kit's entry-point I/O, injected so tests capture output. @module */
import type { MainIo } from "@svc/shared/main";

/** Results (keys, tables) go to `out`; notices and errors to `err`. */
export type CliIo = MainIo;

/** Turns a missing-table error into advice; other errors pass through. */
export function explainDbError(err: unknown): string {
  const code = (err as { code?: string })?.code;
  if (code === "42P01") return "the database has no schema yet: run `migrate up` first";
  if (code === "ECONNREFUSED") return "cannot connect to the database server";
  return err instanceof Error ? err.message : String(err);
}
