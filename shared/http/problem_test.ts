import assert from "node:assert/strict";
import {
  errorResponse,
  HttpError,
  MAX_PROBLEM_VALUE_DEPTH,
  MAX_PROBLEM_VALUE_WIDTH,
  problemOf,
  problemResponse,
} from "./problem.ts";
import { createLogger } from "../observe/log.ts";

Deno.test("problemResponse() sets the media type and defaults type and title", async () => {
  const res = problemResponse({ status: 404, detail: "x" });
  assert.equal(res.status, 404);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.deepEqual(await res.json(), {
    type: "about:blank",
    title: "Not Found",
    status: 404,
    detail: "x",
  });
});

Deno.test("errorResponse() renders an HttpError with its errors, headers and extensions", async () => {
  const err = new HttpError(422, "validation_failed", "Cannot create todo: invalid body", {
    errors: [{ location: "body.title", message: "expected length >= 1", value: "" }],
    headers: { "Retry-After": "3" },
    extra: { $schema: "http://x/schemas/ErrorModel.json" },
  });
  assert.equal(err.code, "validation_failed");
  const res = errorResponse(err, { instance: "/v1/todos" });
  assert.equal(res.status, 422);
  assert.equal(res.headers.get("retry-after"), "3");
  assert.deepEqual(await res.json(), {
    $schema: "http://x/schemas/ErrorModel.json",
    type: "about:blank",
    title: "Unprocessable Content",
    status: 422,
    detail: "Cannot create todo: invalid body",
    instance: "/v1/todos",
    errors: [{ location: "body.title", message: "expected length >= 1", value: "" }],
  });
});

Deno.test("errorResponse() hides internals of unexpected errors and logs them", async () => {
  const lines: string[] = [];
  const logger = createLogger({ write: (l) => lines.push(l) });
  const res = errorResponse(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { logger });
  assert.equal(res.status, 500);
  const text = await res.text();
  assert.ok(!text.includes("ECONNREFUSED"));
  assert.equal(JSON.parse(text).title, "Internal Server Error");
  assert.match(lines[0], /ECONNREFUSED/);
});

Deno.test("errorResponse() treats thrown non-errors as 500", async () => {
  const res = errorResponse("oops");
  assert.equal(res.status, 500);
  await res.body?.cancel();
});

Deno.test("problemOf() gives the problem and headers errorResponse() would send", () => {
  const { problem, headers } = problemOf(
    new HttpError(429, "rate_limited", "Cannot serve: slow down", {
      headers: { "Retry-After": "2" },
    }),
    { instance: "/x" },
  );
  assert.deepEqual(problem, {
    type: "about:blank",
    title: "Too Many Requests",
    status: 429,
    detail: "Cannot serve: slow down",
    instance: "/x",
  });
  assert.deepEqual(headers, { "Retry-After": "2" });
  const hidden = problemOf(new Error("secret internals"));
  assert.equal(hidden.problem.status, 500);
  assert.ok(!JSON.stringify(hidden.problem).includes("secret"));
});

Deno.test("problemResponse serializes echoed values whatever their depth, size or type", async () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  const res = problemResponse({
    status: 422,
    errors: [
      { location: "body", message: "deep", value: deep },
      { location: "body.n", message: "big", value: 10n },
      { location: "body.s", message: "long", value: "x".repeat(5000) },
      { location: "body.l", message: "wide", value: Array.from({ length: 1000 }, (_, i) => i) },
    ],
  });
  assert.equal(res.status, 422);
  const body = await res.json();
  let level = body.errors[0].value;
  let depth = 0;
  while (typeof level === "object") {
    level = level.a;
    depth++;
  }
  assert.equal(depth, MAX_PROBLEM_VALUE_DEPTH);
  assert.equal(level, "{…}");
  assert.equal(body.errors[1].value, "10");
  assert.equal(body.errors[2].value.length, 1025);
  assert.equal(body.errors[3].value.length, MAX_PROBLEM_VALUE_WIDTH);
  // Values within the bounds are unchanged.
  const plain = await problemResponse({
    status: 422,
    errors: [{ location: "body", message: "m", value: { a: [1, "two", null, true] } }],
  }).json();
  assert.deepEqual(plain.errors[0].value, { a: [1, "two", null, true] });
});

Deno.test("HttpError.toProblem() bounds echoed values too (services that render their own body)", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const err = new HttpError(422, "validation_failed", "bad", {
    errors: [{ location: "body", message: "m", value: deep }],
  });
  const text = JSON.stringify(err.toProblem());
  assert.ok(text.length < 200, text);
});

Deno.test("errorResponse() sends an HttpError subclass's own response, as the boundary's one render", async () => {
  const lines: string[] = [];
  class OAuthError extends HttpError {
    override toResponse(): Response {
      return Response.json({ error: this.code, error_description: this.message }, {
        status: this.status,
        headers: this.headers,
      });
    }
  }
  const err = new OAuthError(401, "invalid_client", "unknown client", {
    headers: { "WWW-Authenticate": 'Basic realm="x"' },
  });
  const res = errorResponse(err, {
    logger: createLogger({ write: (l) => lines.push(l) }),
    instance: "/default/token",
  });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("www-authenticate"), 'Basic realm="x"');
  assert.deepEqual(await res.json(), {
    error: "invalid_client",
    error_description: "unknown client",
  });
  assert.deepEqual(lines, [], "a deliberate answer is not logged");
});

Deno.test("HttpError.toResponse() is the problem errorResponse() sends, instance included", async () => {
  const err = new HttpError(409, "conflict", "Cannot create: it exists", {
    headers: { "x-a": "1" },
  });
  const own = err.toResponse("/v1/things");
  const viaBoundary = errorResponse(err, { instance: "/v1/things" });
  assert.equal(own.status, viaBoundary.status);
  assert.equal(own.headers.get("x-a"), "1");
  assert.equal(own.headers.get("content-type"), "application/problem+json");
  assert.deepEqual(await own.json(), await viaBoundary.json());
});
