import assert from "node:assert/strict";
import { createLogger } from "../observe/log.ts";
import {
  installUncaughtGuard,
  reportUncaughtTo,
  requestIdOfReason,
  uncaughtCounts,
} from "./uncaught_guard.ts";
import { nextTurn, waitUntil } from "@svc/testing";

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  let wake: () => void = () => {};
  const logger = createLogger({
    write: (line) => {
      lines.push(JSON.parse(line));
      wake();
    },
  });
  /** Resolves once `n` lines were written. */
  const until = async (n: number) => {
    while (lines.length < n) await new Promise<void>((r) => wake = r);
  };
  return { logger, lines, until };
}

Deno.test("requestIdOfReason() reads requestId from the reason or its cause chain", () => {
  assert.equal(requestIdOfReason(Object.assign(new Error("x"), { requestId: "a" })), "a");
  const inner = Object.assign(new Error("inner"), { requestId: "b" });
  assert.equal(requestIdOfReason(new Error("outer", { cause: inner })), "b");
  assert.equal(requestIdOfReason(new Error("plain")), "unknown");
  assert.equal(requestIdOfReason("a string"), "unknown");
  assert.equal(requestIdOfReason(undefined), "unknown");
  assert.equal(requestIdOfReason({ requestId: "" }), "unknown");
  // A cause chain that loops ends.
  const a: { cause?: unknown } = {};
  a.cause = a;
  assert.equal(requestIdOfReason(a), "unknown");
});

Deno.test("the guard logs an unhandled rejection once, counts it, and the process goes on", async (t) => {
  const { logger, lines, until } = capturingLogger();
  const removeA = installUncaughtGuard();
  const removeB = installUncaughtGuard(); // nested: still one report per rejection
  const giveBack = reportUncaughtTo(logger);
  try {
    await t.step("with the request id the reason carries", async () => {
      const before = uncaughtCounts();
      void Promise.reject(
        Object.assign(new TypeError("Request closed: token=abc"), { requestId: "req-1" }),
      );
      await until(1);
      await nextTurn(); // a second report would be written by now
      assert.equal(lines.length, 1);
      const [line] = lines;
      assert.equal(line.level, "error");
      assert.equal(line.msg, "unhandled rejection");
      assert.equal(line.request_id, "req-1");
      assert.equal(line["error.type"], "TypeError");
      assert.equal(line.kept_serving, true);
      assert.ok(Array.isArray(line["error.at"]), "where it was thrown");
      assert.ok(!JSON.stringify(line).includes("token=abc"), "never the message");
      assert.deepEqual(uncaughtCounts(), { ...before, rejections: before.rejections + 1 });
    });
    await t.step("without one: request_id unknown; a cause chain is named", async () => {
      void Promise.reject(new Error("outer", { cause: new RangeError("inner") }));
      await until(2);
      assert.equal(lines[1].request_id, "unknown");
      assert.equal(lines[1]["error.type"], "Error < RangeError");
    });
    await t.step("a rejection with no Error at all", async () => {
      void Promise.reject(42);
      await until(3);
      assert.equal(lines[2]["error.type"], "number");
      assert.equal(lines[2]["error.at"], undefined);
    });
    await t.step("an exception thrown in a timer: logged and counted as one", async () => {
      const before = uncaughtCounts();
      setTimeout(() => {
        throw Object.assign(new SyntaxError("in a timer"), { requestId: "req-2" });
      }, 0);
      await until(4);
      assert.equal(lines[3].msg, "uncaught exception");
      assert.equal(lines[3].request_id, "req-2");
      assert.equal(lines[3]["error.type"], "SyntaxError");
      assert.deepEqual(uncaughtCounts(), { ...before, exceptions: before.exceptions + 1 });
    });
    await t.step("a logger that throws does not make the guard crash", async () => {
      const giveBackBad = reportUncaughtTo({
        ...logger,
        error: () => {
          throw new Error("broken logger");
        },
      });
      const before = uncaughtCounts().rejections;
      void Promise.reject(new Error("x"));
      await waitUntil(() => uncaughtCounts().rejections !== before, {
        what: "the rejection counted",
      });
      giveBackBad();
      assert.equal(lines.length, 4, "the broken logger got it, not the one lent before");
    });
  } finally {
    giveBack();
    removeB();
    removeB(); // idempotent: must not remove A's share
    removeA();
  }
});

Deno.test("through runMain: reported with the service's logger, metrics count, exit 0", async () => {
  const script = new URL("./testdata/uncaught_guard.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-env", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, stdout + new TextDecoder().decode(out.stderr));
  const lines = stdout.trim().split("\n").map((l) => JSON.parse(l));
  // The timer's exception and the two rejections race (the rejections are reported at a later
  // turn, which a busy machine may put after the timer): each is reported once, in any order.
  assert.equal(lines[0].msg, "before");
  assert.equal(lines[4].msg, "after");
  assert.deepEqual(lines.slice(1, 4).map((l) => `${l.msg} ${l.request_id}`).sort(), [
    "uncaught exception unknown",
    "unhandled rejection req-7",
    "unhandled rejection unknown",
  ]);
  assert.ok(lines.every((l) => l.component === "guarded"), "the lifecycle's logger was used");
  assert.deepEqual(lines[4].metrics, [
    'process_unhandled_rejections_total{service="guarded"} 2',
    'process_uncaught_exceptions_total{service="guarded"} 1',
  ]);
});

Deno.test("without the guard an unhandled rejection still ends the process, lines flushed", async () => {
  const script = new URL("./testdata/uncaught_guard.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-env", script, "bare"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  const stdout = new TextDecoder().decode(out.stdout);
  assert.match(stdout, /"msg":"before"/, "the logger's flush on unhandled rejection still runs");
  // Whichever of the program's errors the runtime reports first ends it: the unhandled rejection
  // or the exception its zero-delay timer throws (their order is the runtime's, not the test's).
  assert.match(
    new TextDecoder().decode(out.stderr),
    /Uncaught (\(in promise\) TypeError: Request closed|RangeError: thrown in a timer)/,
  );
});
