import assert from "node:assert/strict";
import { createRouter, localInfo, withErrors } from "@svc/shared/http";
import { createLogger } from "@svc/shared/log";
import { lazyModule } from "./lazy_module.ts";

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

Deno.test("every module mock-oidc imports by URL is embedded by deno compile (deploy include)", async () => {
  const root = new URL("../../../", import.meta.url);
  const { SERVICES } = await import("../../../deploy/services.ts");
  const include = new Set(SERVICES.find((s) => s.name === "mock-oidc")!.include);
  const resolved: string[] = [];
  const walk = async (dir: URL) => {
    for await (const e of Deno.readDir(dir)) {
      const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
      if (e.isDirectory) await walk(url);
      else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
        const text = await Deno.readTextFile(url);
        for (const [, spec] of text.matchAll(/import\.meta\.resolve\("([^"]+)"\)/g)) {
          const target = spec.startsWith(".") ? new URL(spec, url).href : import.meta.resolve(spec);
          resolved.push(target.slice(root.href.length));
        }
      }
    }
  };
  await walk(new URL("../", import.meta.url));
  assert.ok(resolved.length >= 17, `found ${resolved.length}`);
  assert.ok(resolved.includes("shared/telemetry/tracing.ts"), "the kit's tracing, by its export");
  assert.deepEqual(
    resolved.filter((p) => !include.has(p)),
    [],
    "not in deploy/services.ts include",
  );
});
