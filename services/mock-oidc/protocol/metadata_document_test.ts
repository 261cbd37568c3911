import assert from "node:assert/strict";
import { createClock } from "../clock.ts";
import {
  checkDocument,
  freshnessSeconds,
  MAX_DOCUMENT_BYTES,
  MetadataDocumentError,
  MetadataDocuments,
  type MetadataDocumentsOptions,
} from "./metadata_document.ts";
import { harness } from "./_test_support.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

/** A loopback server answering what `route` says, per path. */
function docServer(route: (path: string) => Response | Promise<Response>) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => route(new URL(req.url).pathname),
  );
  return { base: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

function docOf(clientId: string, extra: Record<string, unknown> = {}) {
  return {
    client_id: clientId,
    client_name: "doc client",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...extra,
  };
}

function rejects(promise: Promise<unknown>, message: RegExp) {
  return assert.rejects(
    promise,
    (e: unknown) =>
      e instanceof MetadataDocumentError && e.code === "metadata_document_unusable" &&
      message.test(e.message),
  );
}

Deno.test("freshnessSeconds: Cache-Control, then Expires, bounded", () => {
  const now = Date.UTC(2030, 0, 1);
  const h = (init: Record<string, string>) => freshnessSeconds(new Headers(init), now);
  assert.equal(h({}), 0);
  assert.equal(h({ "cache-control": "max-age=60" }), 60);
  assert.equal(h({ "cache-control": "public, max-age=0" }), 0);
  assert.equal(h({ "cache-control": "no-store, max-age=60" }), 0);
  assert.equal(h({ "cache-control": "max-age=60, no-cache" }), 0);
  assert.equal(h({ "cache-control": "max-age=99999999" }), 24 * 3600);
  const date = new Date(now).toUTCString();
  assert.equal(h({ expires: new Date(now + 30_000).toUTCString(), date }), 30);
  assert.equal(h({ expires: "0" }), 0);
  assert.equal(h({ expires: new Date(now - 1000).toUTCString(), date }), 0);
});

Deno.test("metadata documents on loopback: fetched, checked, cached as HTTP allows", async (t) => {
  let cacheControl = "max-age=60";
  let served = 0;
  const big = (n: number) => (id: string) => {
    const json = JSON.stringify(docOf(id));
    return json.slice(0, -1) + " ".repeat(n - new TextEncoder().encode(json).length) + "}";
  };
  const srv = docServer(async (path) => {
    served++;
    const id = `${srv.base}${path}`;
    switch (path) {
      case "/client.json":
        return Response.json(docOf(id), { headers: { "cache-control": cacheControl } });
      case "/at-limit.json":
        return new Response(big(MAX_DOCUMENT_BYTES)(id));
      case "/below-limit.json":
        return new Response(big(MAX_DOCUMENT_BYTES - 1)(id));
      case "/over-limit.json":
        return new Response(big(MAX_DOCUMENT_BYTES + 1)(id));
      case "/redirect.json":
        return Response.redirect(`${srv.base}/client.json`, 302);
      case "/missing.json":
        return new Response("no", { status: 404 });
      case "/text.json":
        return new Response("hello");
      case "/other-id.json":
        return Response.json(docOf(`${srv.base}/client.json`));
      case "/secret.json":
        return Response.json(docOf(id, { client_secret: "s" }));
      case "/basic.json":
        return Response.json(docOf(id, { token_endpoint_auth_method: "client_secret_basic" }));
      case "/no-redirects.json":
        return Response.json(docOf(id, { redirect_uris: [] }));
      case "/slow.json":
        // real clock: a slow peer, answering after the fetch's timeout
        await new Promise((r) => setTimeout(r, 3_000));
        return Response.json(docOf(id));
    }
    return new Response("?", { status: 500 });
  });
  let nowMs = Date.UTC(2030, 0, 1);
  const clock = createClock({ now: () => nowMs });
  const docs = (options: Partial<MetadataDocumentsOptions> = {}) =>
    new MetadataDocuments({ clock, allowHttpLoopback: true, ...options });
  try {
    const d = docs();
    await t.step("a valid document: the client, defaults filled in", async () => {
      const client = await d.client(`${srv.base}/client.json`);
      assert.equal(client.clientId, `${srv.base}/client.json`);
      assert.deepEqual(client.metadata.redirect_uris, [REDIRECT]);
      assert.equal(client.metadata.token_endpoint_auth_method, "none");
      assert.equal(d.fetches, 1);
    });
    await t.step("reused while fresh, fetched again once stale", async () => {
      await d.client(`${srv.base}/client.json`);
      assert.equal(d.fetches, 1);
      nowMs += 60_000;
      await d.client(`${srv.base}/client.json`);
      assert.equal(d.fetches, 2);
    });
    await t.step("no-store: fetched every time", async () => {
      cacheControl = "no-store";
      nowMs += 61_000;
      await d.client(`${srv.base}/client.json`);
      await d.client(`${srv.base}/client.json`);
      assert.equal(d.fetches, 4);
    });
    await t.step("size: at and below the bound accepted, above refused", async () => {
      await d.client(`${srv.base}/at-limit.json`);
      await d.client(`${srv.base}/below-limit.json`);
      await rejects(
        d.client(`${srv.base}/over-limit.json`),
        /^the metadata document is larger than 5120 bytes$/,
      );
    });
    const failures: Array<[string, RegExp]> = [
      ["/redirect.json", /^the metadata document answered 302; redirects are not followed$/],
      ["/missing.json", /^the metadata document answered 404$/],
      ["/text.json", /^the metadata document is not JSON$/],
      ["/other-id.json", /^the document's client_id is not its URL$/],
      ["/secret.json", /^a metadata document must not hold a client_secret$/],
      ["/basic.json", /^token_endpoint_auth_method client_secret_basic needs a shared secret/],
      ["/no-redirects.json", /^redirect_uris is required for the authorization_code grant$/],
    ];
    for (const [path, message] of failures) {
      await t.step(`refused: ${path}`, async () => {
        await rejects(d.client(`${srv.base}${path}`), message);
      });
    }
    await t.step("a timeout", async () => {
      await rejects(
        docs({ timeoutMs: 100 }).client(`${srv.base}/slow.json`),
        /^the metadata document did not arrive within 100ms$/,
      );
    });
    await t.step("failures are not cached", async () => {
      const before = served;
      await rejects(d.client(`${srv.base}/missing.json`), /404/);
      await rejects(d.client(`${srv.base}/missing.json`), /404/);
      assert.equal(served, before + 2);
    });
    await t.step("plain http to loopback needs the flag", async () => {
      await rejects(
        docs({ allowHttpLoopback: false }).client(`${srv.base}/client.json`),
        /^plain http is accepted for loopback hosts only with --client-metadata-allow-http-loopback$/,
      );
    });
  } finally {
    await srv.close();
  }
});

Deno.test("client ID URLs: shape and address rules before any fetch", async (t) => {
  const clock = createClock({ now: () => 0 });
  const fetched: string[] = [];
  const fakeFetch = ((url: URL) => {
    fetched.push(String(url));
    return Promise.resolve(Response.json(docOf(String(url))));
  }) as typeof fetch;
  const resolve = (host: string) =>
    Promise.resolve(
      ({
        "public.example": ["93.184.216.34"],
        "intranet.example": ["192.168.1.10"],
        "mixed.example": ["93.184.216.34", "10.1.1.1"],
        "documentation.example": ["198.51.100.7"],
        "sixtofour.example": ["2002:a00:1::1"],
      } as Record<string, string[]>)[host] ?? [],
    );
  const docs = new MetadataDocuments({ clock, fetch: fakeFetch, resolve, allowHttpLoopback: true });
  const refused: Array<[string, RegExp]> = [
    ["http://public.example/c.json", /^the URL must use https$/],
    ["ftp://public.example/c.json", /^the URL must use https$/],
    ["https://u:p@public.example/c.json", /^the URL must not carry credentials$/],
    ["https://public.example/c.json#x", /^the URL must not have a fragment$/],
    ["https://public.example/", /^the URL must have a path without \. or \.\. segments$/],
    ["https://public.example/a/../c.json", /^the URL must have a path/],
    ["https://public.example/./c.json", /^the URL must have a path/],
    [
      "https://10.0.0.1/c.json",
      /^10\.0\.0\.1 is a private or reserved address \(10\.0\.0\.1\); --client-metadata-allow-private-networks allows it$/,
    ],
    ["https://169.254.169.254/latest", /private or reserved/],
    ["https://[fd00::1]/c.json", /private or reserved/],
    [
      "https://intranet.example/c.json",
      /^intranet\.example is a private or reserved address \(192\.168\.1\.10\)/,
    ],
    ["https://mixed.example/c.json", /\(10\.1\.1\.1\)/],
    ["https://nowhere.example/c.json", /^nowhere\.example does not resolve$/],
  ];
  for (const [url, message] of refused) {
    await t.step(url, async () => {
      await rejects(docs.client(url), message);
    });
  }
  await t.step("nothing refused was fetched", () => assert.deepEqual(fetched, []));
  await t.step("percent-encoded dot segments are refused, never fetched elsewhere", async () => {
    // A document server that echoes the client id it is asked about would otherwise vouch for
    // a URL other than the one fetched (`/a/%2e%2e/doc` is fetched as `/doc`).
    const seen: string[] = [];
    let echoed = "";
    const echo = new MetadataDocuments({
      clock,
      resolve,
      allowHttpLoopback: true,
      allowPrivateNetworks: true,
      fetch: ((url: URL) => {
        seen.push(String(url));
        return Promise.resolve(Response.json(docOf(echoed)));
      }) as typeof fetch,
    });
    for (const dots of ["%2e%2e", "%2E%2E", ".%2e", "%2e.", "%2E.", "%2e", "%2E"]) {
      echoed = `http://127.0.0.2:18099/a/${dots}/doc`;
      await rejects(echo.client(echoed), /^the URL must have a path without \. or \.\. segments$/);
    }
    echoed = "http://127.0.0.2:18099/a/b/../../doc";
    await rejects(echo.client(echoed), /^the URL must have a path without \. or \.\. segments$/);
    assert.deepEqual(seen, []);
  });
  await t.step("a client id that is not the URL's normalised form is refused", async () => {
    const cases: Array<[string, string]> = [
      ["https://127.1/c.json", "https://127.0.0.1/c.json"],
      ["https://0x7f.1/c.json", "https://127.0.0.1/c.json"],
      ["https://2130706433/c.json", "https://127.0.0.1/c.json"],
      ["https://[::ffff:127.0.0.1]/c.json", "https://[::ffff:7f00:1]/c.json"],
      ["https://LOCALHOST/c.json", "https://localhost/c.json"],
      ["https://public.example:443/c.json", "https://public.example/c.json"],
      ["https://public.example/a/\t../c.json", "https://public.example/c.json"],
    ];
    for (const [id, href] of cases) {
      await rejects(
        docs.client(id),
        new RegExp(`^the URL is not in normalised form: it parses as ${RegExp.escape(href)}$`),
      );
    }
    assert.deepEqual(fetched, []);
  });
  await t.step("documentation and tunnelling ranges are refused", async () => {
    for (
      const id of [
        "https://198.51.100.7/c.json",
        "https://203.0.113.9/c.json",
        "https://[2002:a00:1::]/c.json",
        "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/c.json",
        "https://[64:ff9b::a9fe:a9fe]/c.json",
        "https://[::ffff:a00:1]/c.json",
        "https://0.0.0.0/c.json",
        "https://documentation.example/c.json",
        "https://sixtofour.example/c.json",
      ]
    ) {
      await rejects(docs.client(id), /is a private or reserved address/);
    }
    assert.deepEqual(fetched, []);
  });
  await t.step("public and loopback hosts are fetched", async () => {
    await docs.client("https://public.example/c.json");
    await docs.client("https://localhost:1/c.json");
    await docs.client("https://127.0.0.2/c.json");
    assert.deepEqual(fetched, [
      "https://public.example/c.json",
      "https://localhost:1/c.json",
      "https://127.0.0.2/c.json",
    ]);
  });
  await t.step("the setting lets private networks through", async () => {
    const open = new MetadataDocuments({
      clock,
      fetch: fakeFetch,
      resolve,
      allowPrivateNetworks: true,
    });
    await open.client("https://intranet.example/c.json");
    assert.equal(fetched.at(-1), "https://intranet.example/c.json");
  });
});

Deno.test("checkDocument: the draft's required members", () => {
  const id = "https://c.example/doc.json";
  assert.throws(() => checkDocument(id, []), /not a JSON object/);
  assert.throws(
    () => checkDocument(id, { ...docOf(id), client_id: undefined }),
    /client_id is not its URL/,
  );
  assert.throws(() => checkDocument(id, docOf(`${id}/`)), /client_id is not its URL/);
  assert.throws(
    () => checkDocument(id, docOf(id, { client_secret_expires_at: 0 })),
    /client_secret/,
  );
  assert.throws(
    () => checkDocument(id, docOf(id, { token_endpoint_auth_method: "client_secret_jwt" })),
    /shared secret/,
  );
  assert.equal(
    checkDocument(id, docOf(id, { token_endpoint_auth_method: undefined })).metadata
      .token_endpoint_auth_method,
    "none",
  );
  assert.equal(
    checkDocument(
      id,
      docOf(id, {
        token_endpoint_auth_method: "private_key_jwt",
        jwks_uri: "https://c.example/jwks",
      }),
    ).metadata.token_endpoint_auth_method,
    "private_key_jwt",
  );
});

Deno.test("authorize and token with a client ID metadata document", async (t) => {
  const srv = docServer((path) => {
    const id = `${srv.base}${path}`;
    if (path === "/client.json") {
      return Response.json(docOf(id), { headers: { "cache-control": "max-age=300" } });
    }
    return new Response("gone", { status: 410 });
  });
  const h = harness({}, { metadataDocuments: { allowHttpLoopback: true } });
  const clientId = `${srv.base}/client.json`;
  const authorize = (id: string, redirect = REDIRECT) =>
    h.call(
      `/default/authorize?${new URLSearchParams({
        client_id: id,
        redirect_uri: redirect,
        response_type: "code",
        state: "s",
      })}`,
    );
  try {
    await t.step("discovery says documents are supported", async () => {
      const doc = await (await h.call("/default/.well-known/oauth-authorization-server")).json();
      assert.equal(doc.client_id_metadata_document_supported, true);
    });
    await t.step("a listed redirect URI gets a code, which the client redeems", async () => {
      const res = await authorize(clientId);
      assert.equal(res.status, 302);
      const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
      const token = await h.form("/default/token", {
        grant_type: "authorization_code",
        code,
        client_id: clientId,
        redirect_uri: REDIRECT,
      });
      assert.equal(token.status, 200);
      await token.body?.cancel();
    });
    await t.step("a redirect URI the document does not list: 400, no redirect", async () => {
      const res = await authorize(clientId, "http://127.0.0.1:9/other");
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), {
        error: "invalid_request",
        error_description: "redirect_uri is not registered for this client",
      });
    });
    await t.step("a document that cannot be fetched: 400 invalid_client, never a 5xx", async () => {
      const res = await authorize(`${srv.base}/gone.json`);
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), {
        error: "invalid_client",
        error_description:
          `Cannot use client_id ${srv.base}/gone.json: the metadata document answered 410`,
      });
    });
    await t.step("an unreachable host: 400 invalid_client", async () => {
      const closed = docServer(() => new Response());
      await closed.close();
      const res = await authorize(`${closed.base}/c.json`);
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.error, "invalid_client");
      assert.match(body.error_description, /cannot be fetched/);
    });
    await t.step("token: the document's method is enforced (no secret)", async () => {
      const res = await h.form("/default/token", {
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: "x",
      });
      assert.equal(res.status, 401);
      assert.equal((await res.json()).error, "invalid_client");
    });
    await t.step("token: a client id URL whose document fails is 401 invalid_client", async () => {
      const res = await h.form("/default/token", {
        grant_type: "client_credentials",
        client_id: `${srv.base}/gone.json`,
      });
      assert.equal(res.status, 401);
      assert.equal((await res.json()).error, "invalid_client");
    });
  } finally {
    await srv.close();
  }
});
