import assert from "node:assert/strict";
import { withErrors } from "./errors.ts";
import { extendTimeout, timeoutSignalOf, withTimeout } from "./timeout.ts";
import { withAccessLog } from "./access_log.ts";
import { clientIp } from "./client_ip.ts";
import { localInfo } from "./handler.ts";
import { HttpError } from "./problem.ts";
import { createLogger } from "../observe/log.ts";
import { nextTurn, waitUntil } from "@svc/testing";

Deno.test("withErrors() turns thrown errors into problems with the path as instance", async () => {
  const h = withErrors(() => {
    throw new HttpError(409, "conflict", "Cannot complete todo: already completed");
  });
  const res = await h(new Request("http://x/v1/todos/1?x=y"), localInfo());
  assert.equal(res.status, 409);
  const body = await res.json();
  assert.equal(body.instance, "/v1/todos/1");
  assert.equal(body.detail, "Cannot complete todo: already completed");
});

Deno.test("withTimeout() answers 503 when the handler is too slow", async () => {
  let late: ReturnType<typeof setTimeout> | undefined;
  const slow = withErrors(withTimeout(
    // real clock: withTimeout's deadline is a real timer (it takes no clock); this handler answers after it
    () => new Promise<Response>((r) => late = setTimeout(() => r(new Response("late")), 200)),
    { ms: 20 },
  ));
  const res = await slow(new Request("http://x/"), localInfo());
  assert.equal(res.status, 503);
  await res.body?.cancel();
  clearTimeout(late);
});

Deno.test("withTimeout() passes fast responses and errors through", async () => {
  const fast = withTimeout(() => new Response("ok"), { ms: 1000 });
  assert.equal(await (await fast(new Request("http://x/"), localInfo())).text(), "ok");
  const failing = withTimeout(() => {
    throw new HttpError(400, "bad");
  }, { ms: 1000 });
  await assert.rejects(Promise.resolve(failing(new Request("http://x/"), localInfo())));
});

Deno.test("withTimeout() still times out after fast requests left its timer idle", async () => {
  let slowNext = false;
  let late: ReturnType<typeof setTimeout> | undefined;
  const handler = withErrors(withTimeout(
    () =>
      slowNext
        // real clock: a handler slower than withTimeout's real deadline timer
        ? new Promise<Response>((r) => late = setTimeout(() => r(new Response("late")), 500))
        : new Response("fast"),
    { ms: 40 },
  ));
  for (let i = 0; i < 3; i++) {
    // each leaves the queue empty and its timer armed but unref'd (this test would leak otherwise)
    assert.equal(await (await handler(new Request("http://x/"), localInfo())).text(), "fast");
    // real clock: time passes between requests with the deadline timer idle, the case under test
    await new Promise((r) => setTimeout(r, 15));
  }
  slowNext = true;
  const start = performance.now();
  const res = await handler(new Request("http://x/"), localInfo());
  const took = performance.now() - start;
  assert.equal(res.status, 503);
  assert.ok(took >= 39 && took < 400, `timed out after ${took} ms`);
  await res.body?.cancel();
  clearTimeout(late);
});

Deno.test("withAccessLog() logs method, path without query, status and request id", async () => {
  const lines: string[] = [];
  const logger = createLogger({ write: (l) => lines.push(l) });
  const h = withAccessLog(() => new Response("x", { status: 201 }), {
    logger,
    skip: (p) => p === "/healthz",
  });
  await h(new Request("http://x/token?code=secret", { method: "POST" }), localInfo());
  await h(new Request("http://x/healthz"), localInfo());
  await nextTurn();
  assert.equal(lines.length, 1);
  const line = JSON.parse(lines[0]);
  assert.equal(line.method, "POST");
  assert.equal(line.path, "/token");
  assert.equal(line.status, 201);
  assert.ok(!lines[0].includes("secret"));
});

Deno.test("clientIp() trusts the configured header only", () => {
  const req = new Request("http://x/", { headers: { "X-Real-IP": "10.1.2.3, 10.0.0.1" } });
  assert.equal(clientIp(req, localInfo("192.0.2.9")), "192.0.2.9");
  assert.equal(clientIp(req, localInfo("192.0.2.9"), { trustedHeader: "X-Real-IP" }), "10.1.2.3");
  assert.equal(
    clientIp(new Request("http://x/"), localInfo("192.0.2.9"), { trustedHeader: "X-Real-IP" }),
    "192.0.2.9",
  );
});

Deno.test("withAccessLog() works on a real connection after the response is sent", async () => {
  const lines: string[] = [];
  const logger = createLogger({ write: (l) => lines.push(l) });
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    withAccessLog(() => new Response("ok"), { logger }),
  );
  const res = await fetch(`http://127.0.0.1:${server.addr.port}/x`);
  assert.equal(await res.text(), "ok");
  await waitUntil(() => lines.length > 0, { what: "the access log line" });
  assert.equal(JSON.parse(lines[0]).remote, "127.0.0.1");
});

Deno.test("timeoutSignalOf() aborts before withTimeout() answers 503", async () => {
  let signal: AbortSignal | undefined;
  const slow = withTimeout((req) => {
    signal = timeoutSignalOf(req);
    return new Promise<Response>(() => {});
  }, { ms: 10 });
  await assert.rejects(
    async () => await slow(new Request("http://x/"), localInfo()),
    (err: { status: number }) => err.status === 503,
  );
  assert.equal(signal?.aborted, true);
  assert.equal(timeoutSignalOf(new Request("http://x/")), undefined);
});

Deno.test("extendTimeout() moves a request's deadline later, never earlier", async (t) => {
  await t.step(
    "extended: a 60 ms handler under a 20 ms timeout extended to 200 ms answers",
    async () => {
      const handler = withTimeout(async (req) => {
        assert.equal(extendTimeout(req, 200), true);
        // real clock: a handler that outlives the first deadline but not the extended one
        await new Promise((r) => setTimeout(r, 60));
        return new Response("ok");
      }, { ms: 20 });
      assert.equal((await handler(new Request("http://x/"), localInfo())).status, 200);
    },
  );
  await t.step("extended deadline still ends the request, with the signal aborted", async () => {
    let signal: AbortSignal | undefined;
    const handler = withTimeout((req) => {
      extendTimeout(req, 40);
      signal = timeoutSignalOf(req);
      return new Promise<Response>(() => {});
    }, { ms: 10 });
    const started = performance.now();
    await assert.rejects(
      async () => await handler(new Request("http://x/"), localInfo()),
      (err: { status: number }) => err.status === 503,
    );
    assert.ok(performance.now() - started >= 35, "ended at the extended deadline, not before");
    assert.equal(signal?.aborted, true);
  });
  await t.step("a shorter extension does not shorten the timeout", async () => {
    const handler = withTimeout(async (req) => {
      extendTimeout(req, 1);
      // real clock: a handler that outlives the 1 ms extension; the 200 ms timeout must still apply
      await new Promise((r) => setTimeout(r, 30));
      return new Response("ok");
    }, { ms: 200 });
    assert.equal((await handler(new Request("http://x/"), localInfo())).status, 200);
  });
  await t.step("outside withTimeout it reports that no timeout applies", () => {
    assert.equal(extendTimeout(new Request("http://x/"), 10), false);
  });
});

Deno.test("withTimeout() expires concurrent requests in arrival order, each at its deadline", async () => {
  const h = withTimeout(async (req) => {
    if (new URL(req.url).pathname === "/fast") return new Response("fast");
    await new Promise((resolve) => timeoutSignalOf(req)!.addEventListener("abort", resolve));
    return new Response("aborted");
  }, { ms: 60 });
  const order: string[] = [];
  const call = async (path: string) => {
    const res = await Promise.resolve(h(new Request(`http://x${path}`), localInfo()))
      .catch((e: HttpError) => e);
    order.push(`${path} ${res.status ?? 200}`);
    return res;
  };
  const a = call("/a");
  const fast = call("/fast");
  // real clock: the third request arrives 25 ms later, so the deadlines differ
  await new Promise((r) => setTimeout(r, 25));
  const c = call("/c");
  const [resA, resFast, resC] = await Promise.all([a, fast, c]);
  assert.equal((resA as HttpError).code, "request_timeout");
  assert.equal(await (resFast as Response).text(), "fast");
  assert.equal((resC as HttpError).code, "request_timeout");
  assert.deepEqual(order, ["/fast 200", "/a 503", "/c 503"]);
});

Deno.test("withTimeout() leaves no timer behind once every request has answered", async () => {
  // The test sanitizer fails this test if a timer outlives it.
  const h = withTimeout(() => new Response("ok"), { ms: 10_000 });
  await Promise.all(
    [1, 2, 3].map(async () => (await h(new Request("http://x/"), localInfo())).text()),
  );
  const late = withTimeout(async () => {
    // real clock: a handler that answers after a timer of its own
    await new Promise((r) => setTimeout(r, 5));
    return new Response("ok");
  }, { ms: 10_000 });
  assert.equal(await (await late(new Request("http://x/"), localInfo())).text(), "ok");
});

/**
 * A request that behaves as Deno's does once the response is over: reading its headers (or the
 * peer address) throws `Request closed` (an HTTP/2 request does so even after an earlier read).
 */
function closingRequest(url: string, init: RequestInit = {}) {
  const req = new Request(url, init);
  const headers = req.headers;
  let closed = false;
  Object.defineProperty(req, "headers", {
    get() {
      if (closed) throw new TypeError("Request closed");
      return headers;
    },
  });
  let finish!: () => void;
  const completed = new Promise<void>((r) => finish = r);
  const info: Deno.ServeHandlerInfo = { ...localInfo(), completed };
  return {
    req,
    info,
    close() {
      closed = true;
      finish();
    },
  };
}

Deno.test("withAccessLog() reads the request before the response is over, never after", async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ write: (l) => lines.push(JSON.parse(l)) });
  const h = withAccessLog(() => new Response("x"), {
    logger,
    route: (req) => req.headers.has("x-route") ? "/with-header" : "/plain",
  });
  const { req, info, close } = closingRequest("http://x/a", { headers: { "x-route": "1" } });
  const res = await h(req, info);
  close();
  await nextTurn(); // an unhandled rejection would fail this test
  assert.equal(res.status, 200);
  assert.equal(lines.length, 1);
  assert.equal(lines[0].route, "/with-header");
  assert.equal(lines[0].method, "GET");
});

Deno.test("withTimeout() expires a waiting request behind thousands answered before it", async () => {
  const h = withTimeout(async (req) => {
    if (new URL(req.url).pathname === "/fast") return await Promise.resolve(new Response("fast"));
    await new Promise((resolve) => timeoutSignalOf(req)!.addEventListener("abort", resolve));
    return new Response("aborted");
  }, { ms: 50 });
  const call = (path: string) =>
    Promise.resolve(h(new Request(`http://x${path}`), localInfo())).catch((e: HttpError) => e);
  // 2000 in flight, answered in arrival order ahead of the slow one: the queue drops them as they
  // go (past its compaction at 1024), and still fires the slow one's deadline.
  const fast = Array.from({ length: 2000 }, () => call("/fast"));
  const slow = call("/slow");
  const answers = await Promise.all(fast);
  assert.ok(answers.every((r) => r instanceof Response && r.status === 200));
  assert.equal(((await slow) as HttpError).code, "request_timeout");
  const after = await call("/fast");
  assert.equal(await (after as Response).text(), "fast");
  for (const r of answers) await (r as Response).body?.cancel();
});
