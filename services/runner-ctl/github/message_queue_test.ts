import assert from "node:assert/strict";
import { ActionsError } from "./errors.ts";
import type { HttpDeps } from "./http.ts";
import { deleteMessage, getMessage, jobMessagesOf } from "./message_queue.ts";

const msg = (body: unknown, messageType = "RunnerScaleSetJobMessages") => ({
  messageId: 1,
  messageType,
  body: body as string,
});

Deno.test("jobMessagesOf decodes the double-encoded body and drops what is malformed", () => {
  const job = { messageType: "JobAvailable", runnerRequestId: 7 };
  assert.deepEqual(jobMessagesOf(msg(JSON.stringify([job]))), [job]);
  assert.deepEqual(jobMessagesOf(msg("[]")), []);
  assert.deepEqual(jobMessagesOf(msg("")), []);
  assert.deepEqual(jobMessagesOf(msg("{not json")), []);
  assert.deepEqual(jobMessagesOf(msg(JSON.stringify({ a: 1 }))), [], "not an array");
  assert.deepEqual(jobMessagesOf(msg(JSON.stringify([1, null, "x", [job], job]))), [job]);
  assert.deepEqual(jobMessagesOf(msg(42)), [], "body not a string");
  assert.deepEqual(jobMessagesOf(msg(JSON.stringify([job]), "SomethingElse")), [], "other type");
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  assert.deepEqual(jobMessagesOf(msg(deep)), [], "100 000-deep nesting is dropped, not a crash");
});

function recording(): { http: HttpDeps; seen: string[] } {
  const seen: string[] = [];
  const http: HttpDeps = {
    userAgent: "t",
    retry: { initialMs: 1, maximumMs: 1, retries: 0 },
    fetch: (input, init) => {
      seen.push(`${init?.method} ${String(input)}`);
      return Promise.resolve(new Response(null, { status: 202 }));
    },
  };
  return { http, seen };
}

Deno.test("the queue token goes only to an https queue URL without credentials", async (t) => {
  const badResponse = (e: unknown) => e instanceof ActionsError && e.code === "bad_response";
  for (
    const queueUrl of [
      "http://evil.example/queue/1",
      "https://user:pw@evil.example/queue/1",
      "file:///var/lib/incus/unix.socket",
      "",
    ]
  ) {
    await t.step(`refused: ${queueUrl || "(empty)"}`, async () => {
      const { http, seen } = recording();
      const poll = { queueUrl, queueToken: "qt", lastMessageId: 3, maxCapacity: 1 };
      await assert.rejects(getMessage(http, { ...poll, pollTimeoutMs: 0 }), badResponse);
      await assert.rejects(deleteMessage(http, { ...poll, messageId: 4 }), badResponse);
      assert.deepEqual(seen, [], "no request was made");
    });
  }
  await t.step("accepted: the broker's https URL, ids appended as segments", async () => {
    const { http, seen } = recording();
    const queueUrl = "https://broker.actions.githubusercontent.com/rest/q/abc";
    await getMessage(http, {
      queueUrl,
      queueToken: "qt",
      lastMessageId: 3,
      maxCapacity: 1,
      pollTimeoutMs: 0,
    });
    await deleteMessage(http, { queueUrl, queueToken: "qt", messageId: 4 });
    assert.deepEqual(seen, [`GET ${queueUrl}?lastMessageId=3`, `DELETE ${queueUrl}/4`]);
  });
  await t.step("refused: a message id that is not a safe integer", async () => {
    const { http, seen } = recording();
    const queueUrl = "https://broker.example/q";
    for (const messageId of [-1, 1.5, 2 ** 53]) {
      await assert.rejects(
        deleteMessage(http, { queueUrl, queueToken: "qt", messageId }),
        badResponse,
      );
    }
    assert.deepEqual(seen, []);
  });
});
