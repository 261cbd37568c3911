import assert from "node:assert/strict";
import { startService } from "./testing.ts";

const entry = new URL("./testdata/echo_service.ts", import.meta.url).pathname;

Deno.test("startService() waits for every listener and health, and stops gracefully", async () => {
  const svc = await startService({ entry, listeners: ["api", "metrics"] });
  assert.match(svc.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(await (await fetch(svc.url + "/x")).text(), "echo");
  assert.equal(await (await fetch(svc.urls.metrics)).text(), "m 1\n");
  assert.equal(await svc.stop(), 0);
  assert.match(svc.output(), /"msg":"shutdown_completed"/);
});

Deno.test("startService() reports a process that dies at startup with its output", async () => {
  await assert.rejects(
    startService({ entry, args: ["--crash"], timeoutMs: 10_000 }),
    /Cannot start .*the process exited[\s\S]*asked to crash/,
  );
});
