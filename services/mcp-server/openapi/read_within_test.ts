import assert from "node:assert/strict";
import {
  type Bound,
  boundProblem,
  directoryBound,
  originBound,
  ReadFailed,
  ReadRefused,
  readWithin,
} from "./read_within.ts";

/** A server on 127.0.0.2 recording each request's path; `/stall` never answers. */
function serve(handle: (req: Request) => Response = () => new Response("0123456789")) {
  const hits: string[] = [];
  const stalled = new AbortController();
  const server = Deno.serve({ hostname: "127.0.0.2", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    hits.push(`${req.method} ${url.pathname}`);
    if (url.pathname === "/stall") {
      await new Promise((r) => stalled.signal.addEventListener("abort", r));
    }
    if (url.pathname === "/slow-body") {
      // the head now, the body never
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new Uint8Array(1)) }));
    }
    return handle(req);
  });
  return {
    origin: `http://127.0.0.2:${server.addr.port}`,
    hits,
    async stop() {
      stalled.abort();
      await server.shutdown();
    },
  };
}

const OPTIONS = { maxBytes: 10, timeoutMs: 5000 };

Deno.test("boundProblem: origin and path prefix, checked on the URL alone", () => {
  const bound = originBound(new URL("http://127.0.0.2:8080/docs/api.json"));
  assert.deepEqual(bound, { origin: "http://127.0.0.2:8080", pathPrefix: "/" });
  const inside = [
    "http://127.0.0.2:8080/x",
    "http://127.0.0.2:8080/docs/../other",
    "HTTP://127.0.0.2:8080/x",
    "http://0x7f.0.0.2:8080/x", // the URL parser writes it 127.0.0.2: the same host
    "http://2130706434:8080/x",
  ];
  for (const u of inside) assert.equal(boundProblem(new URL(u), bound), undefined, u);
  const outside = [
    "http://127.0.0.3:8080/x",
    "http://127.0.0.2:8081/x",
    "http://127.0.0.2/x",
    "https://127.0.0.2:8080/x",
    "http://localhost:8080/x",
    "http://[::ffff:127.0.0.2]:8080/x",
    "file:///etc/passwd",
    "data:,x",
    "ftp://127.0.0.2:8080/x",
  ];
  for (const u of outside) {
    assert.equal(boundProblem(new URL(u), bound), `${new URL(u).href} is not on ${bound.origin}`);
  }
  const api = originBound(new URL("https://api.example/v2"), "/v2");
  assert.deepEqual(api, { origin: "https://api.example", pathPrefix: "/v2/" });
  assert.equal(boundProblem(new URL("https://api.example/v2/items"), api), undefined);
  assert.equal(
    boundProblem(new URL("https://api.example/v2/../admin"), api),
    "https://api.example/admin is not under https://api.example/v2/",
  );
  assert.equal(
    boundProblem(new URL("https://api.example/v2x"), api),
    "https://api.example/v2x is not under https://api.example/v2/",
  );
});

Deno.test("boundProblem: files under a directory; .., %2e%2e, encoded separators, hosts", () => {
  const bound: Bound = { directory: "/srv/api/", realDirectory: "/srv/api/" };
  for (
    const u of ["file:///srv/api/a.json", "file:///srv/api/sub/../b.json", "file:///srv/api/%61"]
  ) {
    assert.equal(boundProblem(new URL(u), bound), undefined, u);
  }
  for (
    const u of [
      "file:///srv/api",
      "file:///srv/apix/a.json",
      "file:///srv/api/../secret",
      "file:///srv/api/%2e%2e/secret",
      "file:///srv/api/.%2E/secret",
      "file:///srv/api/..%2Fsecret",
      "file:///srv/api/sub%2f..%2f..%2fsecret",
      "file:///srv/api/..%5Csecret",
      "file:///srv/api/a%00.json",
      "file:///srv/api/%E0%A4%A",
      "file://host/srv/api/a.json",
      "http://127.0.0.1/srv/api/a.json",
    ]
  ) {
    assert.equal(
      boundProblem(new URL(u), bound),
      `${new URL(u).href} is not under /srv/api/`,
      u,
    );
  }
});

Deno.test("readWithin http: body bound at, below and above; status and headers", async () => {
  const peer = serve((req) =>
    new Response("0123456789", { status: req.method === "POST" ? 201 : 200, headers: { x: "y" } })
  );
  const bound = originBound(new URL(peer.origin));
  const url = new URL(`${peer.origin}/a`);
  try {
    const at = await readWithin(url, bound, { ...OPTIONS, maxBytes: 10 });
    assert.equal(new TextDecoder().decode(at.bytes), "0123456789");
    assert.equal(at.status, 200);
    assert.equal(at.headers.get("x"), "y");
    const below = await readWithin(url, bound, { ...OPTIONS, maxBytes: 11 });
    assert.equal(below.bytes?.length, 10);
    const above = await readWithin(url, bound, { ...OPTIONS, maxBytes: 9 });
    assert.equal(above.bytes, undefined);
    const posted = await readWithin(url, bound, {
      ...OPTIONS,
      request: { method: "POST", headers: new Headers(), body: "{}" },
    });
    assert.equal(posted.status, 201);
    assert.deepEqual(peer.hits, ["GET /a", "GET /a", "GET /a", "POST /a"]);
  } finally {
    await peer.stop();
  }
});

Deno.test("readWithin http: refused before anything is sent; redirects returned, not followed", async () => {
  const other = serve();
  const peer = serve(() =>
    new Response(null, { status: 302, headers: { location: `${other.origin}/x` } })
  );
  try {
    const bound = originBound(new URL(peer.origin));
    await assert.rejects(
      () => readWithin(new URL(`${other.origin}/x`), bound, OPTIONS),
      new ReadRefused(`${other.origin}/x is not on ${peer.origin}`),
    );
    const answer = await readWithin(new URL(`${peer.origin}/r`), bound, OPTIONS);
    assert.equal(answer.status, 302);
    assert.equal(answer.headers.get("location"), `${other.origin}/x`);
    assert.deepEqual(peer.hits, ["GET /r"]);
    assert.deepEqual(other.hits, []);
  } finally {
    await Promise.all([peer.stop(), other.stop()]);
  }
});

Deno.test("readWithin http: no answer, or no body, within the time; the caller's abort", async () => {
  const peer = serve();
  const bound = originBound(new URL(peer.origin));
  try {
    for (const path of ["/stall", "/slow-body"]) {
      await assert.rejects(
        () => readWithin(new URL(`${peer.origin}${path}`), bound, { ...OPTIONS, timeoutMs: 50 }),
        (err: Error) => {
          assert.ok(err instanceof ReadFailed);
          assert.equal(err.code, "timeout");
          assert.equal(err.message, "no answer within 50 ms");
          return true;
        },
        path,
      );
    }
    const caller = new AbortController();
    const reason = new Error("the call ended");
    const pending = readWithin(new URL(`${peer.origin}/stall`), bound, {
      ...OPTIONS,
      signal: caller.signal,
    });
    caller.abort(reason);
    await assert.rejects(() => pending, reason);
    // nothing listens on port 9 of 127.0.0.2
    const closed = originBound(new URL("http://127.0.0.2:9"));
    await assert.rejects(
      () => readWithin(new URL("http://127.0.0.2:9/x"), closed, OPTIONS),
      (err: Error) => err instanceof ReadFailed && err.code === "unreachable",
    );
  } finally {
    await peer.stop();
  }
});

Deno.test("readWithin file: inside the directory, symlinks resolved, existence never told", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "read_within_" }));
  const dir = `${base}/api`;
  try {
    await Deno.mkdir(`${dir}/sub`, { recursive: true });
    await Deno.mkdir(`${base}/out`);
    await Deno.writeTextFile(`${dir}/a.json`, "0123456789");
    await Deno.writeTextFile(`${base}/out/secret`, "secret");
    await Deno.symlink(`${base}/out`, `${dir}/link`);
    await Deno.symlink(`${dir}/a.json`, `${dir}/sub/same.json`);
    const bound = await directoryBound(new URL(`file://${dir}/main.json`));
    assert.deepEqual(bound, { directory: `${dir}/`, realDirectory: `${dir}/` });
    const read = (path: string, maxBytes = 10) =>
      readWithin(new URL(`file://${path}`), bound, { ...OPTIONS, maxBytes });
    // size bound at, below, above
    assert.equal(new TextDecoder().decode((await read(`${dir}/a.json`)).bytes), "0123456789");
    assert.equal((await read(`${dir}/a.json`, 11)).bytes?.length, 10);
    assert.equal((await read(`${dir}/a.json`, 9)).bytes, undefined);
    assert.equal((await read(`${dir}/sub/same.json`)).bytes?.length, 10);
    // lexically outside: refused before any syscall, the same text whether it exists or not
    for (const path of [`${base}/out/secret`, `${base}/out/missing`]) {
      await assert.rejects(
        () => read(path),
        new ReadRefused(`file://${path} is not under ${dir}/`),
      );
    }
    // behind a symlink that leads out: existing, missing, missing deeper
    for (const path of [`${dir}/link/secret`, `${dir}/link/missing`, `${dir}/link/a/b`]) {
      await assert.rejects(() => read(path), new ReadRefused(`${path} leads outside ${dir}/`));
    }
    // inside: honest reasons
    await assert.rejects(
      () => read(`${dir}/missing.json`),
      new ReadFailed("unreadable", `cannot read ${dir}/missing.json (NotFound)`),
    );
    await assert.rejects(
      () => read(`${dir}/sub/x/y.json`),
      new ReadFailed("unreadable", `cannot read ${dir}/sub/x/y.json (NotFound)`),
    );
    await assert.rejects(
      () => read(`${dir}/sub`),
      new ReadFailed("unreadable", `cannot read ${dir}/sub (not a file)`),
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
