import assert from "node:assert/strict";
import { DEFAULT_CONFIG, parseJsonConfig } from "./config/json_config.ts";
import { createCore } from "./provider_state.ts";

Deno.test("without tokenProvider the first issuer touched gets the same bundled key every run", async () => {
  const first = await createCore(DEFAULT_CONFIG).keys.jwks("whatever");
  const second = await createCore(DEFAULT_CONFIG).keys.jwks("other-name");
  assert.equal(first.keys[0].n, second.keys[0].n);
});

Deno.test("tokenProvider.systemTime starts the one process clock frozen", () => {
  const config = parseJsonConfig('{"tokenProvider":{"systemTime":"2020-01-21T00:00:00Z"}}', "x");
  const core = createCore(config);
  assert.deepEqual(core.clock.state(), {
    frozen: true,
    now: new Date("2020-01-21T00:00:00Z"),
  });
  assert.equal(core.signer, "webcrypto");
  assert.equal(core.protocol.clock, core.clock); // one clock shared by protocol and control
});
