/**
 * One `wrk` run (1 thread) for the todo-api benchmarks, with the API key header and an optional
 * Lua script; refuses a run that saw non-2xx answers. Needs `wrk` (Debian package).
 */

/** What one run did. */
export interface WrkResult {
  /** Requests completed. */
  requests: number;
  /** Requests per second as wrk reports it. */
  rps: number;
}

/** Runs wrk against `url` for `seconds` with `connections`, sending `X-API-Key: key`. */
export async function wrk(
  url: string,
  options: { key: string; lua: string; seconds: number; connections: number },
): Promise<WrkResult> {
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(script, options.lua);
  try {
    const out = await new Deno.Command("wrk", {
      args: [
        "-t1",
        `-c${options.connections}`,
        `-d${options.seconds}s`,
        "-s",
        script,
        "-H",
        `X-API-Key: ${options.key}`,
        url,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
    const total = /(\d+) requests in/.exec(text);
    if (!rps || !total) {
      throw new Error(`wrk failed: ${text}${new TextDecoder().decode(out.stderr)}`);
    }
    if (/Non-2xx/.test(text)) throw new Error(`wrk saw errors: ${text}`);
    return { requests: Number(total[1]), rps: Number(rps[1]) };
  } finally {
    await Deno.remove(script);
  }
}
