import assert from "node:assert/strict";
import { createApiRouter, createControlRouter } from "./api_router.ts";

const INFO = {} as Deno.ServeHandlerInfo;
const tag = (name: string) => () => Promise.resolve(new Response(name));

Deno.test("the API router sends each path to its owner", async () => {
  const route = createApiRouter({
    protocol: tag("protocol"),
    control: tag("control"),
    controlMissing: () => new Response("missing", { status: 404 }),
    staticFiles: tag("static"),
    operational: (req) =>
      new URL(req.url).pathname === "/healthz" ? new Response("ops") : undefined,
  });
  const owner = async (path: string) =>
    await (await route(new Request(`http://x${path}`), INFO)).text();
  assert.equal(await owner("/healthz"), "ops");
  assert.equal(await owner("/_mock/clock"), "control");
  assert.equal(await owner("/static/a.css"), "static");
  assert.equal(await owner("/default/token"), "protocol");
  assert.equal(await owner("/_mockery/token"), "protocol");
});

Deno.test("without a co-located control plane /_mock/* is answered by controlMissing", async () => {
  const route = createApiRouter({
    protocol: tag("protocol"),
    controlMissing: () => new Response("missing", { status: 404 }),
    operational: () => undefined,
  });
  const res = await route(new Request("http://x/_mock/clock"), INFO);
  assert.equal(res.status, 404);
  assert.equal(await res.text(), "missing");
  assert.equal(await (await route(new Request("http://x/static/a"), INFO)).text(), "protocol");
});

Deno.test("the control listener serves only /_mock/*", async () => {
  const route = createControlRouter(tag("control"));
  assert.equal(await (await route(new Request("http://x/_mock/clock"))).text(), "control");
  const other = await route(new Request("http://x/default/jwks"));
  assert.equal(other.status, 404);
  await other.body?.cancel();
});
