import assert from "node:assert/strict";
import { ActionsError, errorOfResponse, stripBom } from "./errors.ts";
import { backoffMs, call, type HttpDeps } from "./http.ts";

function deps(responses: (() => Response)[], sleeps: number[]): HttpDeps {
  let i = 0;
  return {
    fetch: () => Promise.resolve(responses[Math.min(i++, responses.length - 1)]()),
    userAgent: "t",
    retry: { initialMs: 100, maximumMs: 350 },
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  };
}

Deno.test("call retries and maps errors", async (t) => {
  await t.step("retries 5xx and 429 with doubling backoff capped at retry.maximum", async () => {
    const sleeps: number[] = [];
    const res = await call(
      deps([
        () => new Response("x", { status: 500 }),
        () => new Response("x", { status: 503 }),
        () => new Response("x", { status: 429 }),
        () => new Response("x", { status: 502 }),
        () => new Response('\ufeff{"ok":1}', { status: 200 }),
      ], sleeps),
      { what: "t", method: "GET", url: "https://x/" },
    );
    assert.equal(res.text, '{"ok":1}');
    assert.deepEqual(sleeps, [100, 200, 350, 350]);
  });
  await t.step("gives up after 4 retries", async () => {
    const sleeps: number[] = [];
    await assert.rejects(
      call(deps([() => new Response("x", { status: 500 })], sleeps), {
        what: "t",
        method: "GET",
        url: "https://x/",
      }),
      (e: unknown) => e instanceof ActionsError && e.code === "http_error" && e.status === 500,
    );
    assert.equal(sleeps.length, 4);
  });
  await t.step("honours Retry-After, capped at retry.maximum", async () => {
    const sleeps: number[] = [];
    await call(
      deps([
        () => new Response("x", { status: 429, headers: { "Retry-After": "0" } }),
        () => new Response("x", { status: 429, headers: { "Retry-After": "60" } }),
        () => new Response("{}", { status: 200 }),
      ], sleeps),
      { what: "t", method: "GET", url: "https://x/" },
    );
    assert.deepEqual(sleeps, [0, 350]);
  });
  await t.step(
    "GitHub's rate limit (403 + x-ratelimit-remaining: 0) waits for the reset",
    async () => {
      const sleeps: number[] = [];
      const reset = (s: number) => String(Math.floor(Date.now() / 1000) + s);
      const limited = (headers: Record<string, string>) => () =>
        new Response("x", { status: 403, headers: { "x-ratelimit-remaining": "0", ...headers } });
      const res = await call(
        deps([
          limited({ "x-ratelimit-reset": reset(-5) }), // already past: retry at once
          limited({ "x-ratelimit-reset": reset(3600) }), // an hour away: capped at retry.maximum
          limited({}), // no reset given: at once
          limited({ "x-ratelimit-reset": reset(3600), "retry-after": "0" }), // Retry-After wins
          () => new Response("{}", { status: 200 }),
        ], sleeps),
        { what: "t", method: "GET", url: "https://x/" },
      );
      assert.equal(res.status, 200);
      assert.deepEqual(sleeps, [0, 350, 0, 0]);
      // a 403 with requests left (or without the header) is a refusal, not a rate limit
      for (const headers of [{ "x-ratelimit-remaining": "1" }, {} as Record<string, string>]) {
        const none: number[] = [];
        await assert.rejects(
          call(deps([() => new Response("x", { status: 403, headers })], none), {
            what: "t",
            method: "GET",
            url: "https://x/",
          }),
          (e: unknown) => e instanceof ActionsError && e.status === 403,
        );
        assert.equal(none.length, 0);
      }
    },
  );
  await t.step("does not retry 501, 400 or 404; retries 401 only when asked", async () => {
    for (const status of [501, 400, 404, 401]) {
      const sleeps: number[] = [];
      await assert.rejects(call(deps([() => new Response("x", { status })], sleeps), {
        what: "t",
        method: "GET",
        url: "https://x/",
      }));
      assert.equal(sleeps.length, 0);
    }
    const sleeps: number[] = [];
    await call(
      deps([
        () => new Response("x", { status: 401 }),
        () => new Response("x", { status: 403 }),
        () => new Response("{}", { status: 201 }),
      ], sleeps),
      { what: "t", method: "POST", url: "https://x/", retryUnauthorized: true },
    );
    assert.equal(sleeps.length, 2);
  });
  await t.step("connection errors are retried, then reported as network", async () => {
    const sleeps: number[] = [];
    const d = deps([], sleeps);
    d.fetch = () => Promise.reject(new TypeError("refused"));
    await assert.rejects(
      call(d, { what: "t", method: "GET", url: "https://x/" }),
      (e: unknown) => e instanceof ActionsError && e.code === "network",
    );
    assert.equal(sleeps.length, 4);
  });
  await t.step("backoff doubles from initial and stops at maximum", () => {
    const p = { initialMs: 1000, maximumMs: 30_000 };
    assert.deepEqual([0, 1, 2, 3, 4, 5, 40].map((a) => backoffMs(p, a)), [
      1000,
      2000,
      4000,
      8000,
      16000,
      30000,
      30000,
    ]);
  });
});

Deno.test("errorOfResponse maps typeName, not message text", () => {
  const body = (t: string) => JSON.stringify({ typeName: `GitHub.X.${t}, GitHub.X`, message: "m" });
  assert.equal(errorOfResponse("x", 400, body("AgentExistsException")).code, "agent_exists");
  assert.equal(errorOfResponse("x", 404, body("AgentNotFoundException")).code, "agent_not_found");
  assert.equal(
    errorOfResponse("x", 400, body("JobStillRunningException")).code,
    "job_still_running",
  );
  assert.equal(
    errorOfResponse("x", 404, "\ufeff" + body("RunnerScaleSetNotFoundException")).code,
    "scale_set_not_found",
  );
  assert.equal(
    errorOfResponse("x", 409, body("TaskAgentSessionConflictException")).code,
    "session_conflict",
  );
  assert.equal(errorOfResponse("x", 401, "plain text").code, "unauthorized");
  assert.equal(errorOfResponse("x", 404, "").code, "not_found");
  assert.equal(errorOfResponse("x", 500, "boom\u0000").message, "Cannot x: HTTP 500: boom ");
  assert.equal(stripBom("\ufeff{}"), "{}");
  assert.equal(stripBom("{}"), "{}");
});

Deno.test("backoff is jittered so controllers sharing a scale set do not retry in step", async (t) => {
  for (const [random, expected] of [[0, [50, 100, 175, 175]], [0.999999, [100, 200, 350, 350]]]) {
    await t.step(`random ${random} keeps each wait within [backoff/2, backoff]`, async () => {
      const sleeps: number[] = [];
      const d = {
        ...deps([() => new Response("x", { status: 503 })], sleeps),
        random: () => random as number,
      };
      await assert.rejects(call(d, { what: "t", method: "GET", url: "https://x/" }));
      assert.deepEqual(sleeps.map(Math.round), expected);
    });
  }
  await t.step("Retry-After is honoured as given, without jitter", async () => {
    const sleeps: number[] = [];
    const d = {
      ...deps([
        () => new Response("x", { status: 429, headers: { "retry-after": "0" } }),
        () => new Response("ok", { status: 200 }),
      ], sleeps),
      random: () => 0,
    };
    await call(d, { what: "t", method: "GET", url: "https://x/" });
    assert.deepEqual(sleeps, [0]);
  });
  await t.step("the controller's HTTP deps carry a random source", async () => {
    const src = await Deno.readTextFile(new URL("../serve.ts", import.meta.url));
    assert.match(src, /random: Math\.random/);
  });
});

Deno.test("a redirect to another origin does not carry the Authorization header", async () => {
  // The token bound of service_url.ts relies on fetch dropping Authorization across origins.
  const seen: (string | null)[] = [];
  const elsewhere = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push(req.headers.get("authorization"));
    return Response.json({ ok: 1 });
  });
  const named = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(null, {
        status: 307,
        headers: { location: `http://127.0.0.1:${elsewhere.addr.port}/x` },
      }),
  );
  try {
    const res = await call(
      { fetch, userAgent: "t", retry: { initialMs: 1, maximumMs: 1, retries: 0 } },
      {
        what: "t",
        method: "GET",
        url: `http://127.0.0.1:${named.addr.port}/`,
        headers: { Authorization: "Bearer secret" },
      },
    );
    assert.equal(res.text, '{"ok":1}');
    assert.deepEqual(seen, [null], "the other origin saw no Authorization");
  } finally {
    await named.shutdown();
    await elsewhere.shutdown();
  }
});
