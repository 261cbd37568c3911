import assert from "node:assert/strict";
import { createRouter, localInfo, withErrors } from "../http/mod.ts";
import { createLogger } from "../observe/log.ts";
import { declaredLazyModules, lazyModule, lazyModuleAt, onFirstUse } from "./lazy_module.ts";

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

Deno.test("lazyModuleAt names its URL and records it, before any use", () => {
  const url = new URL("../codec/sha256.ts", import.meta.url).href;
  const load = lazyModuleAt(url);
  assert.equal(load.url, url);
  assert.ok(declaredLazyModules().includes(url), "declared without being loaded");
  const missing = new URL("./never_loaded_module.ts", import.meta.url).href;
  assert.ok(!declaredLazyModules().includes(missing));
  lazyModuleAt(missing);
  lazyModuleAt(missing);
  assert.equal(declaredLazyModules().filter((u) => u === missing).length, 1, "listed once");
});

Deno.test("onFirstUse loads the module on the first call, not before, and passes the arguments", async () => {
  let loads = 0;
  const load = lazyModule(() => {
    loads++;
    return Promise.resolve({ greet: (name: string, times: number) => `hi ${name} `.repeat(times) });
  });
  const greet = onFirstUse(load, (m) => m.greet);
  assert.equal(loads, 0, "declaring the handler loads nothing");
  assert.equal(await greet("a", 2), "hi a hi a ");
  assert.equal(await greet("b", 1), "hi b ");
  assert.equal(loads, 1, "loaded once");
});

Deno.test("onFirstUse: a failed load rejects that call and is tried again on the next", async () => {
  let loads = 0;
  const load = lazyModule(() => {
    loads++;
    return loads === 1
      ? Promise.reject(new Error("no such module"))
      : Promise.resolve({ answer: () => new Response("ok") });
  });
  const handler = onFirstUse(load, (m) => m.answer);
  await assert.rejects(handler(), /no such module/);
  assert.equal(await (await handler()).text(), "ok");
  assert.equal(loads, 2);
});

Deno.test("onFirstUse as a route row's handler: the row answers once its module has loaded", async () => {
  const url = new URL("../codec/duration.ts", import.meta.url).href;
  const duration = lazyModuleAt<typeof import("../codec/duration.ts")>(url);
  const router = createRouter([{
    method: "GET",
    pattern: "/ms/:text",
    handler: onFirstUse(
      duration,
      (m) => (_req: Request, ctx) => Response.json(m.parseDuration(ctx.params.text!)),
    ),
  }]);
  const res = await router.handler(new Request("http://x/ms/1.5s"), localInfo());
  assert.equal(await res.json(), 1500);
});

Deno.test("onFirstUse by export name: the function of that name, typed from the module", async () => {
  let loads = 0;
  const load = lazyModule(() => {
    loads++;
    return Promise.resolve({
      add: (a: number, b: number) => a + b,
      answer: (req: Request) => Promise.resolve(new Response(new URL(req.url).pathname)),
      VERSION: "1",
    });
  });
  const add = onFirstUse(load, "add");
  const answer = onFirstUse(load, "answer");
  assert.equal(loads, 0);
  assert.equal(await add(2, 3), 5);
  assert.equal(await (await answer(new Request("http://x/p"))).text(), "/p");
  assert.equal(loads, 1);
  // @ts-expect-error: VERSION is not a function, so it cannot answer
  onFirstUse(load, "VERSION");
});
