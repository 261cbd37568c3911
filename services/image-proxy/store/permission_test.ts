import assert from "node:assert/strict";
import { checkStorageGrant, deniedPermission, netGrantHint } from "./permission.ts";
import { StoreError } from "./errors.ts";

const HINT = "add s3.example:9000 to IMGPROXY_ALLOW_NET when compiling (deno task compile), or " +
  "to --allow-net when running from source";

Deno.test("netGrantHint names the compile-time variable and the run flag", () => {
  assert.equal(netGrantHint("s3.example:9000"), HINT);
});

Deno.test("deniedPermission names the host or path of a NotCapable, however deep", () => {
  const net = new Deno.errors.NotCapable(
    'Requires net access to "s3.example:9000", run again with the --allow-net flag',
  );
  assert.equal(
    deniedPermission(net),
    `the network permission does not cover s3.example:9000 (${HINT})`,
  );
  const wrapped = new StoreError("failed", "x", { cause: new Error("sdk", { cause: net }) });
  assert.equal(deniedPermission(wrapped), deniedPermission(net));
  const read = new Deno.errors.NotCapable(
    'Requires read access to "/root/.aws/credentials", run again with the --allow-read flag',
  );
  assert.equal(
    deniedPermission(read),
    "the read permission does not cover /root/.aws/credentials (run with " +
      "--allow-read=/root/.aws/credentials)",
  );
  assert.equal(
    deniedPermission(new Deno.errors.NotCapable("something else")),
    "a permission is missing (NotCapable)",
  );
  assert.equal(deniedPermission(new Error("ECONNREFUSED")), undefined);
  assert.equal(deniedPermission("not an error"), undefined);
});

Deno.test("checkStorageGrant passes AWS itself and a granted endpoint", () => {
  // This test process runs with -A; the refusal is tested at the process level
  // (tests/image-proxy/shipped_test.ts), under a narrow grant.
  checkStorageGrant(undefined, "--s3.endpoint");
  checkStorageGrant("http://127.0.0.1:9000", "--s3.endpoint");
  checkStorageGrant("https://s3.example", "--s3.endpoint");
});
