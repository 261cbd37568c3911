/**
 * Test support for the kit: run a snippet in a child Deno process, send it SIGTERM once it has
 * printed a marker, and collect its exit code and output.
 *
 * @module
 */

/** Runs `code` with `deno eval`, waits for `marker` on stdout, sends SIGTERM, awaits the exit. */
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
