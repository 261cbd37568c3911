import assert from "node:assert/strict";
import { encodeBase64 } from "@svc/shared/base64";
import { jwtExp } from "./jwt_exp.ts";

function jwt(payload: string): string {
  const part = encodeBase64(new TextEncoder().encode(payload), { url: true });
  return `e30.${part}.sig`;
}

Deno.test("jwtExp: the exp claim, or undefined when absent, not a number or not decodable", () => {
  assert.equal(jwtExp(jwt('{"exp":1700000000}')), 1700000000);
  assert.equal(jwtExp(jwt('{"iat":1}')), undefined);
  assert.equal(jwtExp(jwt('{"exp":"soon"}')), undefined);
  assert.equal(jwtExp(jwt("not json")), undefined);
  assert.equal(jwtExp("no-dots"), undefined);
  assert.equal(jwtExp("a.!!!.c"), undefined);
});
