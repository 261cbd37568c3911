import assert from "node:assert/strict";
import { createLogger } from "./log.ts";

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
});

Deno.test("createLogger() child adds fields; text format is readable", () => {
  const { log, lines } = capture({ format: "text" });
  log.child({ service: "svc" }).warn("slow request", { ms: 12, path: "/a b" });
  assert.equal(
    lines[0],
    '1970-01-01T00:00:00.000Z WARN slow request service=svc ms=12 path="/a b"',
  );
});

Deno.test("createLogger() serialises errors by name and message only", () => {
  const { log, lines } = capture();
  log.error("boom", { err: new TypeError("bad") });
  assert.deepEqual(JSON.parse(lines[0]).err, { name: "TypeError", message: "bad" });
});
