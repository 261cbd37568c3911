import assert from "node:assert/strict";
import { localInfo } from "../http/handler.ts";
import { createDrain } from "./drain.ts";

Deno.test("createDrain() refuses requests once draining", async (t) => {
  await t.step("with a 503 problem and Connection: close by default", async () => {
    const drain = createDrain();
    const handler = drain.track(() => new Response("ok"));
    assert.equal((await handler(new Request("http://x/"), localInfo())).status, 200);
    assert.equal(await drain.drain(1_000), true);
    const res = await handler(new Request("http://x/"), localInfo());
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("connection"), "close");
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    await res.body?.cancel();
  });
  await t.step("with the service's own answer when it gives one", async () => {
    const drain = createDrain({
      refuse: () => Response.json({ code: "unavailable" }, { status: 503 }),
    });
    const handler = drain.track(() => new Response("ok"));
    await drain.drain(1_000);
    const res = await handler(new Request("http://x/"), localInfo());
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("connection"), "close");
    assert.deepEqual(await res.json(), { code: "unavailable" });
  });
});
