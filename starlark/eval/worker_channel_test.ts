import assert from "node:assert/strict";
import { CHANNEL_BYTES, receiveReply, ReplyWriter } from "./worker_channel.ts";

Deno.test("a reply written before the reader waits is received whole", () => {
  const sab = new SharedArrayBuffer(CHANNEL_BYTES);
  const value = { ok: true, value: { n: 2n ** 70n, s: "é", list: [1, null] } };
  new ReplyWriter(sab).send(value);
  assert.deepEqual(receiveReply(sab, () => assert.fail("no more chunks expected")), value);
});

Deno.test("large replies are delivered in chunks on request", () => {
  const sab = new SharedArrayBuffer(CHANNEL_BYTES);
  const writer = new ReplyWriter(sab);
  const value = { ok: true, value: "x".repeat(CHANNEL_BYTES * 2) };
  writer.send(value);
  let asks = 0;
  // the reader asks for more; the writer answers synchronously here (same thread)
  const got = receiveReply(sab, () => {
    asks++;
    writer.more();
  });
  assert.deepEqual(got, value);
  assert.equal(asks, 2);
});
