/** Where commands write: injected so tests capture output. @module */
export interface CliIo {
  /** Results (keys, tables) — what a script would read. */
  out(line: string): void;
  /** Notices and errors for the operator. */
  err(line: string): void;
}

/** Writes to the process's stdout and stderr. */
export function processIo(): CliIo {
  const enc = new TextEncoder();
  return {
    out: (line) => Deno.stdout.writeSync(enc.encode(line + "\n")),
    err: (line) => Deno.stderr.writeSync(enc.encode(line + "\n")),
  };
}

/** Turns a missing-table error into advice; other errors pass through. */
export function explainDbError(err: unknown): string {
  const code = (err as { code?: string })?.code;
  if (code === "42P01") return "the database has no schema yet: run `migrate up` first";
  if (code === "ECONNREFUSED") return "cannot connect to the database server";
  return err instanceof Error ? err.message : String(err);
}
