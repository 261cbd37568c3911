import assert from "node:assert/strict";
import { firstAnswer } from "./first_answer.ts";
import { nextTurn } from "@svc/testing";

const req = () => new Request("http://x/healthz");
/** An info whose `completed` the test settles. */
function info() {
  const completed = Promise.withResolvers<void>();
  const value: Deno.ServeHandlerInfo = {
    remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 0 },
    completed: completed.promise,
  };
  return { value, completed };
}
/** Whether `p` has settled after the turns already queued. */
async function settled(p: Promise<void>): Promise<boolean> {
  let yes = false;
  p.then(() => yes = true);
  await nextTurn();
  return yes;
}

Deno.test("firstAnswer: answered once the first answer is out, one turn after completed", async () => {
  const seen: string[] = [];
  const first = firstAnswer((r) => {
    seen.push(new URL(r.url).pathname);
    return new Response("ok");
  }, { maxWaitMs: 60_000 });
  assert.equal(await settled(first.answered), false, "not before any request");
  const one = info();
  const res = await first.handler(req(), one.value);
  assert.equal(await res.text(), "ok");
  assert.deepEqual(seen, ["/healthz"]);
  assert.equal(await settled(first.answered), false, "not before the body is handed over");
  one.completed.resolve();
  await one.completed.promise;
  assert.equal(await settled(first.answered), true);
});

Deno.test("firstAnswer: a first answer the client abandoned counts too", async () => {
  const first = firstAnswer(() => new Response("ok"), { maxWaitMs: 60_000 });
  const one = info();
  await first.handler(req(), one.value);
  one.completed.reject(new Error("connection closed"));
  await first.answered;
});

Deno.test("firstAnswer: only the first request is watched", async () => {
  const first = firstAnswer(() => new Response("ok"), { maxWaitMs: 60_000 });
  const one = info();
  const two = info();
  await first.handler(req(), one.value);
  await first.handler(req(), two.value);
  two.completed.resolve();
  assert.equal(await settled(first.answered), false, "the second answer does not count");
  one.completed.resolve();
  await first.answered;
});

Deno.test("firstAnswer: answered after maxWaitMs when no request comes", async () => {
  const first = firstAnswer(() => new Response("ok"), { maxWaitMs: 0 });
  await first.answered;
});

Deno.test("firstAnswer: answered when the signal aborts, at once when it already has", async () => {
  const stop = new AbortController();
  const first = firstAnswer(() => new Response("ok"), { maxWaitMs: 60_000, signal: stop.signal });
  assert.equal(await settled(first.answered), false);
  stop.abort();
  await first.answered;
  const late = firstAnswer(() => new Response("ok"), { maxWaitMs: 60_000, signal: stop.signal });
  await late.answered;
});

Deno.test("firstAnswer: after arrival, answered one turn after the first request came in", async () => {
  let handled = false;
  const first = firstAnswer(() => {
    handled = true;
    return new Promise<Response>(() => {}); // waits on what `answered` starts: never answers here
  }, { maxWaitMs: 60_000, after: "arrival" });
  assert.equal(await settled(first.answered), false, "not before any request");
  const one = info();
  void first.handler(req(), one.value);
  assert.equal(handled, true);
  // `completed` never settles and maxWaitMs is a minute away: the arrival was enough
  assert.equal(await settled(first.answered), true);
});
