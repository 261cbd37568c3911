import assert from "node:assert/strict";
import type { SettingsError } from "@svc/shared/settings";
import { checkListenAddr, resolveListenAddr } from "./listen_addr.ts";

Deno.test("--addr wins over hostname and port", () => {
  assert.equal(
    resolveListenAddr({ addr: "127.0.0.1:0", serverHostname: "h", serverPort: 1 }),
    "127.0.0.1:0",
  );
});

Deno.test("hostname and port combine; default is :8080", () => {
  assert.equal(resolveListenAddr({ serverHostname: "0.0.0.0", serverPort: 9000 }), "0.0.0.0:9000");
  assert.equal(resolveListenAddr({ serverPort: 9000 }), ":9000");
  assert.equal(resolveListenAddr({}), ":8080");
  assert.equal(resolveListenAddr({ serverHostname: "::1", serverPort: 1 }), "[::1]:1");
});

Deno.test("checkListenAddr names the flag of an unusable address", () => {
  checkListenAddr(":8080", "--addr");
  checkListenAddr("127.0.0.1:0", "--addr");
  assert.throws(() => checkListenAddr("nonsense", "--metrics-addr"), (err: SettingsError) => {
    assert.equal(err.key, "--metrics-addr");
    return true;
  });
});
