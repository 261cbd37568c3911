import assert from "node:assert/strict";
import { MAX_AGENT_MESSAGE_BYTES, sanitizeAgentMessage } from "./agent_error.ts";

const bytes = (s: string) => new TextEncoder().encode(s).length;

Deno.test("sanitizeAgentMessage replaces non-printable runes with spaces", () => {
  assert.equal(sanitizeAgentMessage("a\nb\tc\u0000d\u007fe\u200bf"), "a b c d e f");
  assert.equal(sanitizeAgentMessage("naïve – ✓ 日本"), "naïve – ✓ 日本");
});

Deno.test("sanitizeAgentMessage turns invalid UTF-16 (lone surrogates) into U+FFFD", () => {
  assert.equal(sanitizeAgentMessage("x\ud800y"), "x\ufffdy");
  assert.equal(sanitizeAgentMessage("\udc00"), "\ufffd");
});

Deno.test("sanitizeAgentMessage keeps 256 bytes, cuts 257 on a rune boundary with ...", () => {
  assert.equal(MAX_AGENT_MESSAGE_BYTES, 256);
  assert.equal(sanitizeAgentMessage("x".repeat(255)), "x".repeat(255));
  assert.equal(sanitizeAgentMessage("x".repeat(256)), "x".repeat(256));
  assert.equal(sanitizeAgentMessage("x".repeat(257)), `${"x".repeat(253)}...`);
  const emoji = sanitizeAgentMessage("😀".repeat(100)); // 4 bytes each
  assert.equal(emoji, `${"😀".repeat(63)}...`);
  assert.ok(bytes(emoji) <= 256);
  const mixed = sanitizeAgentMessage("a" + "é".repeat(200));
  assert.ok(bytes(mixed) <= 256 && mixed.endsWith("...") && !mixed.includes("\ufffd"));
});
