import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHmac } from "node:crypto";
import { createCursorCodec, InvalidCursorError } from "./cursor.ts";

const SECRET = new Uint8Array(32).fill(7);
const POS = {
  createdAt: "2026-01-01T00:00:00.123456Z",
  id: "0daa1c1c-0db6-47bc-bad6-471fc3d9ea88",
};

Deno.test("cursor round-trips a position with microseconds for the same scope", async () => {
  const codec = await createCursorCodec(SECRET);
  for (const scope of ["alice", null]) {
    const cursor = await codec.encode(POS, scope);
    assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(await codec.decode(cursor, scope), POS);
  }
});

Deno.test("cursor is rejected for another scope, another secret, or any edit", async () => {
  const codec = await createCursorCodec(SECRET);
  const other = await createCursorCodec(new Uint8Array(32).fill(8));
  const cursor = await codec.encode(POS, "alice");
  await assert.rejects(codec.decode(cursor, "bob"), InvalidCursorError);
  await assert.rejects(codec.decode(cursor, null), InvalidCursorError);
  await assert.rejects(other.decode(cursor, "alice"), InvalidCursorError);
  for (let i = 0; i < cursor.length; i++) {
    if (cursor[i] === ".") continue;
    const edited = cursor.slice(0, i) + (cursor[i] === "A" ? "B" : "A") + cursor.slice(i + 1);
    await assert.rejects(codec.decode(edited, "alice"), InvalidCursorError, `position ${i}`);
  }
});

Deno.test("a correctly signed cursor with a bad payload is still rejected", async () => {
  const codec = await createCursorCodec(SECRET);
  const bad = await codec.encode({ createdAt: "2026-01-01T00:00:00.123Z", id: POS.id }, "a");
  await assert.rejects(codec.decode(bad, "a"), InvalidCursorError);
});

Deno.test("a cursor is base64url(JSON) . base64url(HMAC-SHA-256 of it and the scope)", async () => {
  const codec = await createCursorCodec(SECRET);
  for (const scope of ["alice", null, "ünïcode ✓"]) {
    const [payload, mac] = (await codec.encode(POS, scope)).split(".");
    const json = JSON.stringify({ v: 1, t: POS.createdAt, i: POS.id });
    assert.equal(payload, Buffer.from(json).toString("base64url"));
    const signed = `${payload}\n${scope === null ? "*" : `=${scope}`}`;
    assert.equal(mac, createHmac("sha256", SECRET).update(signed).digest("base64url"));
  }
});

Deno.test("a cursor minted again (kept or evicted) is the same and still checked per scope", async () => {
  const codec = await createCursorCodec(SECRET);
  const first = await codec.encode(POS, "alice");
  assert.equal(await codec.encode(POS, "alice"), first); // kept
  assert.notEqual(await codec.encode(POS, "bob"), first); // the scope is part of the key
  assert.notEqual(await codec.encode(POS, null), first);
  // More positions than are kept (256): the first is evicted and minted anew, equal to before.
  for (let i = 0; i < 300; i++) {
    const id = `0daa1c1c-0db6-47bc-bad6-${String(i).padStart(12, "0")}`;
    await codec.encode({ createdAt: POS.createdAt, id }, "alice");
  }
  const again = await codec.encode(POS, "alice");
  assert.equal(again, first);
  assert.deepEqual(await codec.decode(again, "alice"), POS);
  await assert.rejects(codec.decode(again, "bob"), InvalidCursorError);
});
