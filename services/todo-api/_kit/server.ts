// TEMPORARY stand-in for @svc/shared/server (same API) until the kit lands on main.
import type { Handler } from "./http.ts";
import type { Logger } from "./log.ts";
export interface ListenerSpec {
  name: string;
  addr: string;
  handler: Handler;
}
export interface RunningServer {
  urls: Record<string, string>;
  shutdown(): Promise<void>;
  finished: Promise<void>;
}
export function parseAddr(addr: string): { hostname: string; port: number } {
  const i = addr.lastIndexOf(":");
  return { hostname: addr.slice(0, i) || "0.0.0.0", port: Number(addr.slice(i + 1)) };
}
export async function startServer(
  listeners: ListenerSpec[],
  options: {
    logger: Logger;
    shutdownGrace?: number;
    onShutdown?: () => Promise<void> | void;
    handleSignals?: boolean;
  },
): Promise<RunningServer> {
  const urls: Record<string, string> = {};
  const servers = await Promise.all(
    listeners.map((l) =>
      new Promise<Deno.HttpServer<Deno.NetAddr>>((resolve) => {
        let listening = false;
        const s = Deno.serve({
          ...parseAddr(l.addr),
          onListen: (a) => {
            const url = `http://${a.hostname === "0.0.0.0" ? "127.0.0.1" : a.hostname}:${a.port}`;
            urls[l.name] = url;
            options.logger.info("listening", { listener: l.name, url });
            listening = true;
          },
        }, l.handler);
        if (listening) resolve(s);
      })
    ),
  );
  let done: Promise<void> | undefined;
  let resolveFinished!: () => void;
  const finished = new Promise<void>((r) => (resolveFinished = r));
  const shutdown = () => {
    done ??= (async () => {
      options.logger.info("shutting down");
      const grace = options.shutdownGrace ?? 10_000;
      await Promise.race([
        Promise.all(servers.map((s) => s.shutdown())),
        new Promise((r) => setTimeout(r, grace)),
      ]);
      await options.onShutdown?.();
      resolveFinished();
    })();
    return done;
  };
  if (options.handleSignals ?? true) {
    for (const sig of ["SIGTERM", "SIGINT"] as const) {
      Deno.addSignalListener(sig, () => void shutdown());
    }
  }
  return { urls, shutdown, finished };
}
