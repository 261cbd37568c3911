/**
 * Run a snippet in a child Deno process, send it SIGTERM once it has printed a marker, and collect
 * its exit code and output: how the kit's tests check a process's graceful shutdown.
 *
 * @module
 */

/**
 * Runs `code` with `deno eval`, waits for `marker` on stdout, sends SIGTERM, awaits the exit.
 *
 * @example Usage
 * ```ts
 * import { evalUntilSigterm } from "@svc/testing";
 * import assert from "node:assert/strict";
 * const { code, out } = await evalUntilSigterm(
 *   `const running = setInterval(() => {}, 60_000); // a server, in the kit's tests
 *    Deno.addSignalListener("SIGTERM", () => { clearInterval(running); console.log("bye"); });
 *    console.log("ready");`,
 *   "ready",
 * );
 * assert.equal(code, 0);
 * assert.equal(out, "ready\nbye\n");
 * ```
 */
export async function evalUntilSigterm(
  code: string,
  marker: string,
): Promise<{ code: number; out: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) break;
    out += value;
  }
  child.kill("SIGTERM");
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out += value;
  }
  return { code: (await child.status).code, out };
}
