import assert from "node:assert/strict";
import { fetchOutbound, type FetchOutboundOptions, OutboundRefused } from "./fetch_outbound.ts";

const PRIVATE =
  /is a private or reserved address \(.*\); --client-metadata-allow-private-networks allows it$/;

function refused(promise: Promise<unknown>, message: RegExp | string) {
  return assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof OutboundRefused, String(e));
    assert.equal(e.code, "outbound_refused");
    if (typeof message === "string") assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

/** A fake network: records what would be fetched, answers 200 with a small body. */
function fakeNet() {
  const fetched: string[] = [];
  const names: Record<string, string[]> = {
    "public.example": ["93.184.216.34"],
    "public6.example": ["2606:4700::1111"],
    "intranet.example": ["192.168.1.10"],
    "intranet.example.": ["192.168.1.10"],
    "mixed.example": ["93.184.216.34", "10.1.1.1"],
    "docs.example": ["198.51.100.7"],
    "docs3.example": ["203.0.113.9"],
    "sixtofour.example": ["2002:a00:1::1"],
    "teredo.example": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
    "mapped.example": ["::ffff:a00:1"],
    "nat64.example": ["64:ff9b::a9fe:a9fe"],
    "nat64-public.example": ["64:ff9b::808:808"],
    "loop.example": ["127.0.0.1"],
    "localhost.": ["127.0.0.1"],
  };
  const options = (extra: Partial<FetchOutboundOptions> = {}): FetchOutboundOptions => ({
    maxBytes: 100,
    fetch: ((url: URL) => {
      fetched.push(String(url));
      return Promise.resolve(new Response("{}"));
    }) as typeof fetch,
    resolve: (host) => Promise.resolve(names[host] ?? []),
    ...extra,
  });
  return { fetched, options };
}

Deno.test("fetchOutbound: the URL's shape, before any lookup or fetch", async (t) => {
  const net = fakeNet();
  const open = net.options({ allowHttpLoopback: true, allowPrivateNetworks: true });
  const cases: Array<[string, string | RegExp]> = [
    ["not a url", "it is not a valid URL"],
    ["file:///etc/passwd", "the URL must use https"],
    ["ftp://public.example/c.json", "the URL must use https"],
    ["javascript:alert(1)", "the URL must use https"],
    ["https://u:p@public.example/c.json", "the URL must not carry credentials"],
    ["https://u@public.example/c.json", "the URL must not carry credentials"],
    ["https://public.example/c.json#x", "the URL must not have a fragment"],
    ["https://public.example/c.json#", "the URL must not have a fragment"],
  ];
  const DOTS = "the URL must have a path without . or .. segments";
  // every spelling of a dot segment, raw or percent-encoded, in the middle or at the end
  for (
    const dots of [".", "..", "%2e", "%2E", "%2e%2e", "%2E%2E", "%2e%2E", ".%2e", "%2e.", ".%2E"]
  ) {
    cases.push([`http://127.0.0.2:18099/a/${dots}/doc`, DOTS]);
    cases.push([`https://public.example/a/${dots}`, DOTS]);
  }
  cases.push(["https://public.example/a\\..\\c.json", DOTS]);
  // text the parser would turn into another URL: what is fetched must be what was named
  const normalised = (href: string) => `the URL is not in normalised form: it parses as ${href}`;
  cases.push(
    ["https://127.1/c.json", normalised("https://127.0.0.1/c.json")],
    ["https://0x7f.1/c.json", normalised("https://127.0.0.1/c.json")],
    ["https://2130706433/c.json", normalised("https://127.0.0.1/c.json")],
    ["https://0177.0.0.1/c.json", normalised("https://127.0.0.1/c.json")],
    ["https://[::ffff:127.0.0.1]/c.json", normalised("https://[::ffff:7f00:1]/c.json")],
    ["https://[0:0:0:0:0:0:0:1]/c.json", normalised("https://[::1]/c.json")],
    ["https://LOCALHOST/c.json", normalised("https://localhost/c.json")],
    ["HTTPS://public.example/c.json", normalised("https://public.example/c.json")],
    ["https://Public.Example/c.json", normalised("https://public.example/c.json")],
    ["https://public.example:443/c.json", normalised("https://public.example/c.json")],
    ["https://public.example", normalised("https://public.example/")],
    ["https://public.example/a/\t../c.json", normalised("https://public.example/c.json")],
    ["https://public.example/a b", normalised("https://public.example/a%20b")],
    ["https://ëxample.com/c.json", normalised("https://xn--xample-ova.com/c.json")],
    [" https://public.example/c.json", normalised("https://public.example/c.json")],
  );
  for (const [url, message] of cases) {
    await t.step(JSON.stringify(url), async () => {
      // refused with every setting on: these rules do not depend on them
      await refused(fetchOutbound(url, open), message);
    });
  }
  await t.step("nothing refused was fetched", () => assert.deepEqual(net.fetched, []));
  await t.step("the caller's own rule runs after the shape rules", async () => {
    const rule = (url: URL) => url.pathname === "/" ? "no path" : undefined;
    await refused(fetchOutbound("https://public.example/", { ...open, rule }), "no path");
    await refused(
      fetchOutbound("https://public.example/#", { ...open, rule }),
      "the URL must not have a fragment",
    );
    assert.deepEqual(net.fetched, []);
  });
  await t.step("dot-like segments that are names, and dots in the query, are fine", async () => {
    for (const url of ["https://public.example/a/.../c", "https://public.example/.well/c"]) {
      await fetchOutbound(url, net.options());
    }
    await fetchOutbound("https://public.example/c?x=/../y", net.options());
    assert.deepEqual(net.fetched, [
      "https://public.example/a/.../c",
      "https://public.example/.well/c",
      "https://public.example/c?x=/../y",
    ]);
  });
});

Deno.test("fetchOutbound: where it may connect", async (t) => {
  const net = fakeNet();
  const cases: Array<[string, string | RegExp, Partial<FetchOutboundOptions>?]> = [
    ["http://public.example/c.json", "the URL must use https"],
    ["http://public.example/c.json", "the URL must use https", { allowHttpLoopback: true }],
    [
      "http://127.0.0.1:9/c.json",
      "plain http is accepted for loopback hosts only with --client-metadata-allow-http-loopback",
    ],
    [
      "http://[::ffff:7f00:1]/c.json",
      "plain http is accepted for loopback hosts only with --client-metadata-allow-http-loopback",
    ],
    // only the name localhost itself is loopback without a lookup
    ["http://localhost./c.json", "the URL must use https", { allowHttpLoopback: true }],
    ["http://loop.example/c.json", "the URL must use https", { allowHttpLoopback: true }],
    ["http://[::ffff:a00:1]/c.json", "the URL must use https", { allowHttpLoopback: true }],
    ["http://0.0.0.0/c.json", "the URL must use https", { allowHttpLoopback: true }],
    [
      "https://10.0.0.1/c.json",
      "10.0.0.1 is a private or reserved address (10.0.0.1); " +
      "--client-metadata-allow-private-networks allows it",
    ],
    ["https://0.0.0.0/c.json", PRIVATE],
    ["https://169.254.169.254/latest", PRIVATE],
    ["https://198.51.100.7/c.json", PRIVATE],
    ["https://203.0.113.9/c.json", PRIVATE],
    ["https://192.0.2.1/c.json", PRIVATE],
    ["https://255.255.255.255/c.json", PRIVATE],
    ["https://[fd00::1]/c.json", PRIVATE],
    ["https://[fe80::1]/c.json", PRIVATE],
    ["https://[::]/c.json", PRIVATE],
    ["https://[::ffff:a00:1]/c.json", PRIVATE],
    ["https://[64:ff9b::a9fe:a9fe]/c.json", PRIVATE],
    ["https://[64:ff9b::7f00:1]/c.json", PRIVATE],
    ["https://[2002:a00:1::]/c.json", PRIVATE],
    ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/c.json", PRIVATE],
    ["https://[2001:db8::1]/c.json", PRIVATE],
    ["https://[3fff::1]/c.json", PRIVATE],
    [
      "https://intranet.example/c.json",
      "intranet.example is a private or reserved address (192.168.1.10); " +
      "--client-metadata-allow-private-networks allows it",
    ],
    ["https://intranet.example./c.json", PRIVATE],
    ["https://mixed.example/c.json", /\(10\.1\.1\.1\)/],
    ["https://docs.example/c.json", /\(198\.51\.100\.7\)/],
    ["https://docs3.example/c.json", /\(203\.0\.113\.9\)/],
    ["https://sixtofour.example/c.json", /\(2002:a00:1::1\)/],
    ["https://teredo.example/c.json", /\(2001:0:4136:e378:8000:63bf:3fff:fdd2\)/],
    ["https://mapped.example/c.json", /\(::ffff:a00:1\)/],
    ["https://nat64.example/c.json", /\(64:ff9b::a9fe:a9fe\)/],
    ["https://nowhere.example/c.json", "nowhere.example does not resolve"],
  ];
  for (const [url, message, extra] of cases) {
    await t.step(`${url} ${JSON.stringify(extra ?? {})}`, async () => {
      await refused(fetchOutbound(url, net.options(extra)), message);
    });
  }
  await t.step("nothing refused was fetched", () => assert.deepEqual(net.fetched, []));
  await t.step("public and loopback addresses are fetched", async () => {
    const allowed = [
      "https://public.example/c.json",
      "https://public6.example/c.json",
      "https://nat64-public.example/c.json",
      "https://[2606:4700::1111]/c.json",
      "https://8.8.8.8/c.json",
      "https://localhost:1/c.json",
      "https://127.0.0.2/c.json",
      "https://[::1]/c.json",
      "https://[::ffff:7f00:1]/c.json",
      "https://loop.example/c.json",
      "https://localhost./c.json",
    ];
    for (const url of allowed) await fetchOutbound(url, net.options());
    const http = ["http://127.0.0.1:9/c.json", "http://localhost:9/c.json", "http://[::1]/c.json"];
    for (const url of http) await fetchOutbound(url, net.options({ allowHttpLoopback: true }));
    assert.deepEqual(net.fetched, [...allowed, ...http]);
  });
  await t.step("allowPrivateNetworks lets special addresses through, not other rules", async () => {
    net.fetched.length = 0;
    const open = net.options({ allowPrivateNetworks: true });
    for (const url of ["https://intranet.example/c.json", "https://[2002:a00:1::]/c.json"]) {
      await fetchOutbound(url, open);
    }
    await refused(fetchOutbound("http://10.0.0.1/c.json", open), "the URL must use https");
    assert.deepEqual(net.fetched, [
      "https://intranet.example/c.json",
      "https://[2002:a00:1::]/c.json",
    ]);
  });
});

/** A loopback server answering what `route` says, per path; `release` ends held answers. */
function server(route: (path: string, held: Promise<void>) => Response | Promise<Response>) {
  let release = () => {};
  const held = new Promise<void>((r) => release = r);
  const srv = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => route(new URL(req.url).pathname, held),
  );
  return {
    base: `http://127.0.0.1:${srv.addr.port}`,
    close: async () => {
      release();
      await srv.shutdown();
    },
  };
}

Deno.test("fetchOutbound: the fetch's bounds", async (t) => {
  const seen: Array<{ path: string }> = [];
  const srv = server((path, held) => {
    seen.push({ path });
    const n = Number(/^\/bytes\/(\d+)$/.exec(path)?.[1] ?? NaN);
    if (!Number.isNaN(n)) return new Response("x".repeat(n));
    switch (path) {
      case "/declared-large":
        return new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode("x"));
              c.close();
            },
          }),
          { headers: { "content-length": "101" } },
        );
      case "/redirect":
        return Response.redirect("http://127.0.0.1:1/elsewhere", 302);
      case "/missing":
        return new Response("no", { status: 404 });
      case "/empty":
        return new Response(null, { status: 200 });
      case "/headers":
        return new Response("{}", { headers: { "cache-control": "max-age=5" } });
      case "/silent":
        return held.then(() => new Response("late"));
      case "/stalled":
        return new Response(
          new ReadableStream({
            async start(c) {
              c.enqueue(new TextEncoder().encode("x"));
              await held;
              c.close();
            },
          }),
        );
    }
    return new Response("?", { status: 500 });
  });
  const options = (extra: Partial<FetchOutboundOptions> = {}): FetchOutboundOptions => ({
    maxBytes: 100,
    allowHttpLoopback: true,
    what: "the thing",
    ...extra,
  });
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  try {
    await t.step("at and below maxBytes: the bytes; above: refused", async () => {
      assert.equal((await fetchOutbound(`${srv.base}/bytes/100`, options())).bytes.length, 100);
      assert.equal((await fetchOutbound(`${srv.base}/bytes/99`, options())).bytes.length, 99);
      await refused(
        fetchOutbound(`${srv.base}/bytes/101`, options()),
        "the thing is larger than 100 bytes",
      );
      await refused(
        fetchOutbound(`${srv.base}/declared-large`, options()),
        "the thing is larger than 100 bytes",
      );
    });
    await t.step("headers come back; an empty 200 is no bytes", async () => {
      const got = await fetchOutbound(`${srv.base}/headers`, options());
      assert.equal(text(got.bytes), "{}");
      assert.equal(got.headers.get("cache-control"), "max-age=5");
      assert.equal((await fetchOutbound(`${srv.base}/empty`, options())).bytes.length, 0);
    });
    await t.step("no redirect is followed, other statuses are refused", async () => {
      await refused(
        fetchOutbound(`${srv.base}/redirect`, options()),
        "the thing answered 302; redirects are not followed",
      );
      await refused(fetchOutbound(`${srv.base}/missing`, options()), "the thing answered 404");
    });
    await t.step("the default name of what is fetched", async () => {
      await refused(
        fetchOutbound(`${srv.base}/missing`, { ...options(), what: undefined }),
        "the resource answered 404",
      );
    });
    await t.step("a peer that does not answer, or stops sending: the timeout", async () => {
      // real clock: the timeout under test
      await refused(
        fetchOutbound(`${srv.base}/silent`, options({ timeoutMs: 50 })),
        "the thing did not arrive within 50ms",
      );
      await refused(
        fetchOutbound(`${srv.base}/stalled`, options({ timeoutMs: 50 })),
        "the thing did not arrive within 50ms",
      );
    });
    await t.step("a name that does not resolve in time: the timeout", async () => {
      const resolve = (_host: string, signal: AbortSignal) =>
        new Promise<string[]>((_, reject) => signal.addEventListener("abort", reject));
      // real clock: the timeout under test
      await refused(
        fetchOutbound("https://slow.example/c", options({ timeoutMs: 50, resolve })),
        "the thing did not arrive within 50ms",
      );
    });
    await t.step("a host that refuses the connection", async () => {
      const closed = server(() => new Response());
      await closed.close();
      await refused(
        fetchOutbound(`${closed.base}/c`, options()),
        /^the thing cannot be fetched \(\w+\)$/,
      );
    });
    await t.step("Accept is application/json unless said otherwise", async () => {
      const accepts: Array<string | null> = [];
      const fetch = ((_url: URL, init: RequestInit) => {
        accepts.push(new Headers(init.headers).get("accept"));
        return Promise.resolve(new Response("{}"));
      }) as typeof globalThis.fetch;
      await fetchOutbound(`${srv.base}/x`, options({ fetch }));
      await fetchOutbound(`${srv.base}/x`, options({ fetch, accept: "application/jwk-set+json" }));
      assert.deepEqual(accepts, ["application/json", "application/jwk-set+json"]);
    });
  } finally {
    await srv.close();
  }
});
