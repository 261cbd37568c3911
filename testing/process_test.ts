import assert from "node:assert/strict";
import { startService } from "./process.ts";

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

Deno.test("startService() keeps only the latest outputLimit characters of output", async () => {
  const svc = await startService({ entry, listeners: ["api", "metrics"], outputLimit: 150 });
  // the metrics listener announced itself after the api's line: still found while trimming
  assert.equal(await (await fetch(svc.urls.metrics)).text(), "m 1\n");
  for (let i = 0; i < 20; i++) await (await fetch(svc.url + "/x")).text();
  assert.equal(await svc.stop(), 0);
  const out = svc.output();
  assert.ok(out.length <= 150, `kept ${out.length} characters`);
  assert.ok(out.length > 0);
  assert.match(out, /shutdown_completed/); // the latest line is kept
  assert.doesNotMatch(out, /server_listening/); // the first ones are not
});
