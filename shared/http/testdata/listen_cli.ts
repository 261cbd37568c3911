// Starts one listener through the kit and prints what the entry point would: the one start-up
// line or "listening". For server_test's permission steps, run under a narrow --allow-net.
// Args: <addr> [grant] — with `grant`, the listener names a compile-time grant like image-proxy.
import { startServer } from "../server.ts";
import { runMain } from "../../lifecycle/main.ts";
import { silentLogger } from "../../observe/log.ts";

await runMain(async (args, _env, io) => {
  const [addr, grant] = args;
  const server = await startServer([{
    name: "api",
    addr,
    handler: () => new Response(),
    setting: "--addr / DEMO_ADDR",
    ...(grant ? { netGrant: (hostPort: string) => `add ${hostPort} to ${grant}` } : {}),
  }], { logger: silentLogger(), handleSignals: false });
  io.out("listening");
  await server.shutdown();
  return 0;
}, { name: "demo" });
