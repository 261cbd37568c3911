import assert from "node:assert/strict";
import { jobMessagesOf } from "./message_queue.ts";

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
