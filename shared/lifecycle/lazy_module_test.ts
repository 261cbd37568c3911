import assert from "node:assert/strict";
import { createRouter, localInfo, withErrors } from "../http/mod.ts";
import { createLogger } from "../observe/log.ts";
import { lazyModule, lazyModuleAt } from "./lazy_module.ts";

Deno.test("lazyModule loads once and hands every caller the same module", async () => {
  let loads = 0;
  const load = lazyModule(() => {
    loads++;
    return Promise.resolve({ n: loads });
  });
  assert.equal(loads, 0, "nothing loads before the first use");
  const [a, b] = await Promise.all([load(), load()]);
  assert.equal(loads, 1);
  assert.equal(a, b);
  assert.equal(await load(), a);
  assert.equal(loads, 1);
});

Deno.test("lazyModule rejects on a failed load and tries again on the next use", async () => {
  let loads = 0;
  const load = lazyModule(() => {
    loads++;
    return loads === 1 ? Promise.reject(new Error("no such module")) : Promise.resolve("ok");
  });
  await assert.rejects(load(), /no such module/);
  assert.equal(await load(), "ok");
  assert.equal(loads, 2);
});

Deno.test("lazyModule passes a failed dynamic import on as a rejection", async () => {
  const load = lazyModule(() => import(String(new URL("./missing_module.ts", import.meta.url))));
  await assert.rejects(load());
});

Deno.test("lazyModuleAt imports the module at a URL on first use, once", async () => {
  const url = new URL("../codec/duration.ts", import.meta.url).href;
  const load = lazyModuleAt<typeof import("../codec/duration.ts")>(url);
  const [a, b] = await Promise.all([load(), load()]);
  assert.equal(a, b);
  assert.equal(
    a,
    await import("../codec/duration.ts"),
    "the same module instance as a static import",
  );
});

Deno.test("lazyModuleAt rejects on every use while the module is missing", async () => {
  const load = lazyModuleAt(new URL("./missing_module.ts", import.meta.url).href);
  await assert.rejects(load(), /missing_module/);
  await assert.rejects(load(), /missing_module/);
});

Deno.test("a row whose module fails to load answers a 500 problem, logged; the process serves on", async () => {
  const lines: string[] = [];
  const missing = lazyModule(() =>
    import(String(new URL("./missing_module.ts", import.meta.url))) as Promise<
      { answer(): Response }
    >
  );
  const router = createRouter([
    { method: "GET", pattern: "/lazy", handler: async () => (await missing()).answer() },
    { method: "GET", pattern: "/ok", handler: () => new Response("fine") },
  ]);
  const handler = withErrors(router.handler, {
    logger: createLogger({ write: (line) => lines.push(line) }),
  });
  for (let i = 0; i < 2; i++) {
    const res = await handler(new Request("http://x/lazy"), localInfo());
    assert.equal(res.status, 500);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    const body = await res.json();
    assert.equal(body.status, 500);
    assert.doesNotMatch(JSON.stringify(body), /missing_module/, "no internals in the body");
  }
  assert.equal(lines.length, 2, "each failure is logged");
  assert.match(lines[0], /missing_module/);
  const ok = await handler(new Request("http://x/ok"), localInfo());
  assert.equal(await ok.text(), "fine");
});
