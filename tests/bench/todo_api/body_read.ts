/**
 * What asking a `Deno.serve` request for its `body` before `arrayBuffer()` costs (run on demand,
 * not a test):
 *
 *   deno run -A tests/bench/todo_api/body_read.ts [--seconds 3] [--rounds 2]
 *
 * One server process per way of reading a small POST body, driven by wrk (1 thread, 16
 * connections); the process's utime + stime per request. `whole`: `arrayBuffer()` alone, which
 * takes the body as it came with the head; `stream`: a `req.body === null` check first, which
 * makes the body a `ReadableStream` that `arrayBuffer()` then collects chunk by chunk. This is why
 * the kit's `readBody` looks at `req.body` only when no `Content-Length` is declared.
 */
import { parseArgs } from "node:util";
import { cpuTicks, TICK_US } from "./measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    serve: { type: "string" },
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "2" },
  },
});

if (values.serve) {
  const touch = values.serve === "stream";
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => {
      Deno.stdout.writeSync(new TextEncoder().encode(`http://127.0.0.1:${port}\n`));
    },
  }, async (req) => {
    if (touch && req.body === null) return new Response("no body");
    return new Response(String((await req.arrayBuffer()).byteLength));
  });
} else {
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(
    script,
    `wrk.method = "POST"\nwrk.body = '{"title":"benchmark todo"}'\n`,
  );
  const rows: string[] = [];
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const mode of ["whole", "stream"]) {
        const child = new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", new URL(import.meta.url).pathname, "--serve", mode],
          stdout: "piped",
        }).spawn();
        const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
        const url = (await reader.read()).value!.trim();
        const wrk = (seconds: string) =>
          new Deno.Command("wrk", { args: ["-t1", "-c16", `-d${seconds}s`, "-s", script, url] })
            .output();
        await wrk("1"); // warm-up
        const before = cpuTicks(child.pid);
        const out = new TextDecoder().decode((await wrk(values.seconds!)).stdout);
        const requests = Number(/(\d+) requests in/.exec(out)![1]);
        const us = ((cpuTicks(child.pid) - before) * TICK_US) / requests;
        rows.push(`| ${round + 1} | ${mode} | ${us.toFixed(1)} | ${requests} |`);
        child.kill("SIGTERM");
        await child.status;
        await reader.cancel();
      }
    }
  } finally {
    await Deno.remove(script);
  }
  Deno.stdout.writeSync(
    new TextEncoder().encode(
      `Load average ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}, Deno ${Deno.version.deno}.

| round | read | CPU µs/request | requests |
| --- | --- | --- | --- |
${rows.join("\n")}
`,
    ),
  );
}
