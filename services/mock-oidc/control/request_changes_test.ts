import assert from "node:assert/strict";
import { createControlHandler, fakeDeps, jsonRequest } from "./_test_support.ts";
import { MAX_CHANGES_TIMEOUT_MS } from "./request_log.ts";
import { STATUS_TEXT } from "@svc/shared/problem";

function captured(id: string) {
  const receivedAt = new Date(0).toISOString();
  return { id, receivedAt, issuer: "a", method: "GET", path: "/a/jwks", url: "http://x/a/jwks" };
}

Deno.test("GET /_mock/requests/changes", async (t) => {
  const { deps } = fakeDeps();
  const handle = createControlHandler(deps);
  const get = async (query: string) => {
    const res = await handle(jsonRequest("GET", `/_mock/requests/changes${query}`));
    return { status: res.status, body: await res.json() };
  };
  await t.step("answers the current version at once without `after`", async () => {
    assert.deepEqual(await get(""), { status: 200, body: { version: 0, count: 0 } });
  });
  await t.step("waits for the next change of the log, and leaves the log as it was", async () => {
    const waiting = get("?after=0&timeoutMs=10000");
    deps.requests.append(captured("1"));
    assert.deepEqual(await waiting, { status: 200, body: { version: 1, count: 1 } });
    assert.equal(deps.requests.size, 1);
  });
  await t.step("a take and a clear are changes too", async () => {
    const afterTake = get("?after=1&timeoutMs=10000");
    await deps.requests.take({}, { timeoutMs: 0 });
    assert.deepEqual((await afterTake).body, { version: 2, count: 0 });
    const afterClear = get("?after=2&timeoutMs=10000");
    const cleared = await handle(jsonRequest("DELETE", "/_mock/requests"));
    await cleared.body?.cancel();
    assert.deepEqual((await afterClear).body, { version: 3, count: 0 });
  });
  await t.step("answers unchanged after timeoutMs", async () => {
    assert.deepEqual(await get("?after=3&timeoutMs=20"), {
      status: 200,
      body: { version: 3, count: 0 },
    });
  });
  await t.step(
    "timeoutMs at its bound is accepted, above it and malformed values are 422",
    async () => {
      const atBound = get(`?after=3&timeoutMs=${MAX_CHANGES_TIMEOUT_MS}`);
      deps.requests.append(captured("2"));
      assert.equal((await atBound).status, 200);
      for (
        const query of [
          `?timeoutMs=${MAX_CHANGES_TIMEOUT_MS + 1}`,
          "?timeoutMs=-1",
          "?timeoutMs=1.5",
          "?after=x",
          "?after=99999999999999999",
        ]
      ) {
        const res = await get(query);
        assert.equal(res.status, 422, query);
        assert.equal(res.body.title, STATUS_TEXT[422]);
        assert.match(res.body.errors[0].location, /^query\.(after|timeoutMs)$/);
      }
    },
  );
});
