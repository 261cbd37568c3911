import assert from "node:assert/strict";
import { bufferedWriter, createLogger, flushLogs, requestLineWriter } from "./log.ts";
import { waitUntil } from "@svc/testing";
import type { ServiceIdentity } from "../lifecycle/build_info.ts";

function capture(opts: Parameters<typeof createLogger>[0] = {}) {
  const lines: string[] = [];
  const log = createLogger({ now: () => 0, write: (l) => lines.push(l), ...opts });
  return { log, lines };
}

Deno.test("createLogger() writes JSON lines with time, level and msg", () => {
  const { log, lines } = capture();
  log.info("listening", { url: "http://x" });
  assert.deepEqual(JSON.parse(lines[0]), {
    time: "1970-01-01T00:00:00.000Z",
    level: "info",
    msg: "listening",
    url: "http://x",
  });
});

Deno.test("createLogger() drops lines below its level", () => {
  const { log, lines } = capture({ level: "warn" });
  log.debug("a");
  log.info("b");
  log.warn("c");
  log.error("d");
  assert.deepEqual(lines.map((l) => JSON.parse(l).msg), ["c", "d"]);
});

Deno.test("createLogger() never logs secrets", () => {
  const { log, lines } = capture();
  log.info("req", {
    headers: { authorization: "Bearer abc", "x-mock-control-token": "t0k" },
    client_secret: "s",
    nested: [{ password: "p", apiKey: "k", ok: 1 }],
  });
  assert.ok(!/abc|t0k|"s"|"p"|"k"/.test(lines[0]), lines[0]);
  assert.equal(JSON.parse(lines[0]).nested[0].ok, 1);
  // the logger's own fields too, on every line of it and of its children
  const own = capture({ fields: { component: "svc", apiKey: "own-secret" } });
  own.log.info("a");
  own.log.child({ password: "child-secret" }).warn("b");
  for (const line of own.lines) assert.ok(!/own-secret|child-secret/.test(line), line);
  assert.equal(JSON.parse(own.lines[1]).component, "svc");
});

Deno.test("createLogger() child adds fields; text format is readable", () => {
  const { log, lines } = capture({ format: "text" });
  log.child({ component: "svc" }).warn("slow request", { ms: 12, path: "/a b" });
  assert.equal(
    lines[0],
    '1970-01-01T00:00:00.000Z WARN slow request component=svc ms=12 path="/a b"',
  );
});

Deno.test("createLogger() writes the service identity; fields cannot set it", () => {
  const build = { version: "1.2.3", commit: "c", date: "d" };
  const { log, lines } = capture({
    service: { name: "svc", build },
    fields: { service: "other", "service.name": "other", component: "x" },
  });
  log.info("a", { n: 1 });
  log.child({ "service.version": "9", component: "y" }).info("b");
  assert.deepEqual(JSON.parse(lines[0]), {
    time: "1970-01-01T00:00:00.000Z",
    level: "info",
    msg: "a",
    "service.name": "svc",
    "service.version": "1.2.3",
    component: "x",
    n: 1,
  });
  assert.equal(Object.keys(JSON.parse(lines[0]))[3], "service.name");
  const child = JSON.parse(lines[1]);
  assert.equal(child["service.version"], "1.2.3");
  assert.equal(child.component, "y");
  assert.equal(child.service, undefined);
  // A logger without a service writes no identity.
  const bare = capture();
  bare.log.info("c");
  assert.equal(JSON.parse(bare.lines[0])["service.name"], undefined);
});

Deno.test("createLogger() serialises errors by name and message only", () => {
  const { log, lines } = capture();
  log.error("boom", { err: new TypeError("bad") });
  assert.deepEqual(JSON.parse(lines[0]).err, { name: "TypeError", message: "bad" });
});

function fakeFile(options: { chunk?: number; fail?: boolean } = {}) {
  const writes: string[] = [];
  return {
    writes,
    writeSync(p: Uint8Array): number {
      if (options.fail) throw new Deno.errors.BrokenPipe("closed");
      const n = Math.min(p.length, options.chunk ?? p.length);
      writes.push(new TextDecoder().decode(p.subarray(0, n)));
      return n;
    },
  };
}

Deno.test("bufferedWriter() holds info lines for flushMs, then writes them in one call", async () => {
  const file = fakeFile();
  const log = createLogger({ write: bufferedWriter(file, { flushMs: 20 }), now: () => 0 });
  log.info("a");
  log.debug("hidden"); // below the level: never written
  log.info("b");
  assert.equal(file.writes.length, 0);
  await waitUntil(() => file.writes.length > 0, { what: "the flush after flushMs" });
  assert.equal(file.writes.length, 1);
  assert.deepEqual(file.writes[0].split("\n").slice(0, -1).map((l) => JSON.parse(l).msg), [
    "a",
    "b",
  ]);
});

Deno.test("bufferedWriter() writes warn and error at once, after the lines before them", () => {
  for (const level of ["warn", "error"] as const) {
    const file = fakeFile();
    const log = createLogger({ write: bufferedWriter(file, { flushMs: 60_000 }) });
    log.info("first");
    log[level]("urgent");
    assert.equal(file.writes.length, 1, level);
    assert.deepEqual(file.writes[0].trim().split("\n").map((l) => JSON.parse(l).msg), [
      "first",
      "urgent",
    ]);
  }
});

Deno.test("bufferedWriter() flushes at maxPending, not below", () => {
  const file = fakeFile();
  const write = bufferedWriter(file, { flushMs: 60_000, maxPending: 10 });
  write("12345678"); // 9 with the newline: below
  assert.equal(file.writes.length, 0);
  write(""); // 10: at the bound
  assert.deepEqual(file.writes, ["12345678\n\n"]);
  write("0123456789"); // 11: above
  assert.deepEqual(file.writes, ["12345678\n\n", "0123456789\n"]);
});

Deno.test("bufferedWriter() finishes partial writes and survives a broken file", () => {
  const partial = fakeFile({ chunk: 3 });
  const write = bufferedWriter(partial, { flushMs: 60_000 });
  write("abcdefgh");
  flushLogs();
  assert.equal(partial.writes.join(""), "abcdefgh\n");
  const broken = fakeFile({ fail: true });
  const log = createLogger({ write: bufferedWriter(broken, { flushMs: 60_000 }) });
  log.error("nowhere to go"); // must not throw
  log.info("still fine");
  flushLogs();
});

Deno.test("flushLogs() writes what every buffered writer holds", () => {
  const [one, two] = [fakeFile(), fakeFile()];
  const [w1, w2] = [bufferedWriter(one, { flushMs: 60_000 }), bufferedWriter(two)];
  w1("x");
  w2("y");
  flushLogs();
  assert.deepEqual([one.writes, two.writes], [["x\n"], ["y\n"]]);
});

Deno.test("the default writer loses no line when the process ends", async (t) => {
  const script = new URL("./testdata/log_exit.ts", import.meta.url).pathname;
  for (const [how, code] of [["exit", 3], ["throw", 1], ["reject", 1], ["end", 0]] as const) {
    await t.step(how, async () => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-config", script, how],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, code);
      const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
      assert.deepEqual(lines.map((l) => JSON.parse(l).i), [0, 1, 2]);
    });
  }
});

Deno.test("createLogger() JSON lines are what JSON.stringify of the merged object gives", () => {
  // A later key wins in the earlier place; an array index goes first; `__proto__` is a field.
  const reference = (extra: Record<string, unknown>) => {
    const line: Record<string, unknown> = {
      time: new Date(0).toISOString(),
      level: "info",
      msg: 'say "hi"\n',
      "service.name": "svc",
      "service.version": "1.2.3",
      region: "eu",
    };
    for (const [k, v] of Object.entries(extra)) line[k] = v;
    return line;
  };
  const service = { name: "svc", build: { version: "1.2.3" } } as ServiceIdentity;
  const cases: Record<string, unknown>[] = [
    {},
    { method: "GET", status: 200, durationMs: 1.25, route: undefined, aborted: true, n: null },
    { fn: () => 1, sym: Symbol("s"), nan: NaN, nested: { a: [1, "x", { b: undefined }] } },
    { 'quote"d': "a\u2028b", emoji: "\u{1F600}", lone: "\uD800" },
    { msg: "replaced", region: "us" }, // later key wins, in the earlier place
    { "7": "index first", after: 1 },
    JSON.parse('{"__proto__":{"x":1},"y":2}'),
  ];
  for (const extra of cases) {
    const { log, lines } = capture({ service, fields: { region: "eu" } });
    log.info('say "hi"\n', extra);
    assert.equal(lines[0], JSON.stringify(reference(extra)), JSON.stringify(Object.keys(extra)));
  }
  const secret = capture();
  secret.log.info("m", { apiKey: "k", deep: { token: "t", ok: 1 } });
  assert.equal(
    secret.lines[0],
    '{"time":"1970-01-01T00:00:00.000Z","level":"info","msg":"m","apiKey":"[redacted]",' +
      '"deep":{"token":"[redacted]","ok":1}}',
  );
});

Deno.test('requestLineWriter() writes the very line of logger.info("request", fields)', () => {
  const service = { name: "svc", build: { version: "1.2.3" } } as ServiceIdentity;
  type Args = Parameters<NonNullable<ReturnType<typeof requestLineWriter>>>;
  const cases: Args[] = [
    ["GET", "/v1/todos", "/v1/todos", 200, 1.25, "abc-1", "127.0.0.1", false],
    ["POST", "/a%22b/\u00e9", "/a/{id}", 503, 0, "", undefined, true],
    ["DELETE", "/", "unmatched", 404, 12345.67, "x".repeat(128), "::1", false],
    ["OTHER", '/q"\\', 'r"\\', 500, 0.01, "", "10.0.0.1", true],
    // a static route's path is its label (a part made once), then another path on that route
    ['/q"\\', '/q"\\', '/q"\\', 201, 7, "id", undefined, false],
    ["GET", "/v1/todos/", "/v1/todos", 200, 2, "abc-2", "127.0.0.1", false],
  ];
  for (const fields of [{}, { region: "eu", nested: { token: "t" } }]) {
    for (const args of cases) {
      const fast = capture({ service, fields });
      const slow = capture({ service, fields });
      const write = requestLineWriter(fast.log);
      assert.ok(write);
      write(...args);
      const [method, path, route, status, durationMs, requestId, remote, aborted] = args;
      const f: Record<string, unknown> = {
        method,
        path,
        route,
        status,
        durationMs,
        requestId: requestId || undefined,
        remote,
      };
      if (aborted) f.aborted = true;
      slow.log.info("request", f);
      assert.equal(fast.lines.length, 1);
      assert.equal(fast.lines[0], slow.lines[0]);
    }
  }
  // One logger for every line, its clock moving: the parts it keeps per millisecond, method,
  // route and status, and peer never leak into another line.
  let clock = 0;
  const fast = capture({ service, now: () => clock });
  const slow = capture({ service, now: () => clock });
  const write = requestLineWriter(fast.log)!;
  for (let round = 0; round < 3; round++) {
    for (const args of [...cases, ...cases.toReversed()]) {
      clock += round; // the same millisecond in round 0, a new one per line after
      write(...args);
      const [method, path, route, status, durationMs, requestId, remote, aborted] = args;
      const f: Record<string, unknown> = {
        method,
        path,
        route,
        status,
        durationMs,
        requestId: requestId || undefined,
        remote,
      };
      if (aborted) f.aborted = true;
      slow.log.info("request", f);
    }
  }
  assert.equal(fast.lines.length, 3 * 2 * cases.length);
  assert.deepEqual(fast.lines, slow.lines);
  // No writer where the line could differ or is not written: text, level above info, a fixed
  // field named like a request field; and for a logger not made by createLogger.
  assert.equal(requestLineWriter(createLogger({ format: "text", write: () => {} })), undefined);
  assert.equal(requestLineWriter(createLogger({ level: "warn", write: () => {} })), undefined);
  assert.equal(
    requestLineWriter(createLogger({ fields: { route: "x" }, write: () => {} })),
    undefined,
  );
  for (const fields of [{ msg: "m" }, { level: "x" }, { time: "t" }, { "7": "index" }]) {
    assert.equal(requestLineWriter(createLogger({ fields, write: () => {} })), undefined);
  }
  assert.ok(requestLineWriter(createLogger({ level: "debug", write: () => {} })));
  assert.ok(requestLineWriter(createLogger({ write: () => {} }).child({ a: 1 })));
  assert.equal(
    requestLineWriter(createLogger({ write: () => {} }).child({ status: 1 })),
    undefined,
  );
  assert.equal(requestLineWriter({ ...createLogger({ write: () => {} }) }), undefined);
});

Deno.test("bufferedWriter() writes every batch's own bytes: multi-byte text, a reused buffer, a line longer than it", () => {
  const file = fakeFile();
  const write = bufferedWriter(file, { flushMs: 60_000, maxPending: 16 });
  const lines = ["ä€𝄞 one", "short", "ö".repeat(40), "x", "😀".repeat(30_000), "after"];
  for (const line of lines) write(line);
  flushLogs();
  // Each batch decodes to exactly its lines (no bytes of an earlier, longer batch left over).
  assert.equal(file.writes.join(""), lines.map((l) => l + "\n").join(""));
  // the first three lines (the buffer), the two after them (too long for it: their own array),
  // the last (the buffer again, holding the first batch's longer bytes beyond its own)
  assert.equal(file.writes.length, 3);
  for (const batch of file.writes) assert.ok(batch.endsWith("\n"), JSON.stringify(batch.slice(-8)));
});
