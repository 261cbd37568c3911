// TEMPORARY stand-in for @svc/shared/testing (same API) until the kit lands on main.
export interface ServiceProcess {
  url: string;
  urls: Record<string, string>;
  output(): string;
  stop(signal?: Deno.Signal): Promise<number>;
}
export async function startService(options: {
  entry: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  listeners?: string[];
  healthPath?: string;
  timeoutMs?: number;
}): Promise<ServiceProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", options.entry, ...(options.args ?? [])],
    env: options.env,
    cwd: options.cwd,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  let text = "";
  const urls: Record<string, string> = {};
  const want = options.listeners ?? ["api"];
  const dec = new TextDecoder();
  let wake = () => {};
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s) {
      text += dec.decode(chunk);
      for (const line of text.split("\n")) {
        try {
          const j = JSON.parse(line);
          if (j.msg === "listening") urls[j.listener] = j.url;
        } catch { /* not json */ }
      }
      wake();
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const status = child.status;
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let exited = false;
  status.then(() => {
    exited = true;
    wake();
  });
  while (!want.every((n) => urls[n])) {
    if (exited || Date.now() > deadline) {
      if (!exited) child.kill("SIGKILL");
      await status;
      await pumps;
      throw new Error(`service did not start:\n${text}`);
    }
    await new Promise<void>((r) => {
      wake = r;
      setTimeout(r, 100);
    });
  }
  return {
    url: urls.api,
    urls,
    output: () => text,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      const s = await status;
      await pumps;
      return s.code;
    },
  };
}
