import assert from "node:assert/strict";
import { createStaticHandler } from "./static_files.ts";

async function withTree(fn: (root: string, outside: string) => Promise<void>) {
  const base = await Deno.makeTempDir({ prefix: "mock-oidc-static-" });
  try {
    const root = `${base}/root`;
    await Deno.mkdir(`${root}/sub`, { recursive: true });
    await Deno.writeTextFile(`${root}/hello.txt`, "hello");
    await Deno.writeTextFile(`${root}/sub/app.js`, "x()");
    await Deno.writeTextFile(`${base}/secret.txt`, "secret");
    await Deno.symlink(`${base}/secret.txt`, `${root}/escape.txt`);
    await Deno.symlink(base, `${root}/escape-dir`);
    await Deno.symlink(`${root}/hello.txt`, `${root}/inside-link.txt`);
    await fn(root, base);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("GET /static/* serves files under staticAssetsPath with a content type", async () => {
  await withTree(async (root) => {
    const serve = createStaticHandler(root);
    const res = await serve(new Request("http://x/static/hello.txt"));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(await res.text(), "hello");
    const js = await serve(new Request("http://x/static/sub/app.js"));
    assert.equal(await js.text(), "x()");
    const link = await serve(new Request("http://x/static/inside-link.txt"));
    assert.equal(await link.text(), "hello");
  });
});

Deno.test("GET /static/* answers 404 for traversal, symlink escapes, directories and misses", async () => {
  await withTree(async (root) => {
    const serve = createStaticHandler(root);
    for (
      const path of [
        "/static/../secret.txt",
        "/static/%2e%2e/secret.txt",
        "/static/sub/..%2f..%2fsecret.txt",
        "/static/..%5csecret.txt",
        "/static/escape.txt",
        "/static/escape-dir/secret.txt",
        "/static/sub",
        "/static/sub/",
        "/static/",
        "/static/missing.txt",
        "/static/%zz",
      ]
    ) {
      const res = await serve(new Request(`http://x${path}`));
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
  });
});
