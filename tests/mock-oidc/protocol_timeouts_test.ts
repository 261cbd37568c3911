/**
 * Every timeout mock-oidc accepts is enforced
 * (docs/mock-oidc.md#read-header-and-idle-timeouts-are-refused), tested on a real process over real
 * sockets; the two Deno cannot enforce are refused at startup.
 */
import assert from "node:assert/strict";
import { readUntilClosed } from "@svc/testing/hostile";
import { MAIN, PERMISSIONS, startMock, withLoopbackAddrs } from "./_test_support.ts";

const enc = new TextEncoder();

Deno.test("--read-timeout and --write-timeout hold on real connections", async (t) => {
  const dir = await Deno.makeTempDir();
  const SIZE = 48 * 1024 * 1024; // far more than loopback socket buffers hold
  await Deno.writeFile(`${dir}/big.bin`, new Uint8Array(SIZE));
  const svc = await startMock({
    args: ["--read-timeout=500ms", "--write-timeout=500ms", "--request-timeout=60s"],
    env: { JSON_CONFIG: JSON.stringify({ staticAssetsPath: dir }) },
  });
  const api = new URL(svc.urls.api);
  const connect = () => Deno.connect({ hostname: api.hostname, port: Number(api.port) });
  try {
    await t.step(
      "a stalled token request body is answered 408, not at the request timeout",
      async () => {
        const conn = await connect();
        await conn.write(enc.encode(
          "POST /default/token HTTP/1.1\r\nHost: localhost\r\n" +
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n" +
            "grant_type=client_credentials&client_id=",
        ));
        const started = performance.now();
        const { head } = await readUntilClosed(conn, 1);
        conn.close();
        assert.match(head, /^HTTP\/1\.1 408 /);
        // Well before the 60 s request timeout (generous: the machine may be loaded).
        assert.ok(performance.now() - started < 30_000);
      },
    );
    await t.step("a token request whose body arrives in time is served", async () => {
      const res = await fetch(`${svc.urls.api}/default/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&client_id=c&client_secret=s&scope=openid",
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.ok((await res.json()).access_token);
    });
    await t.step("a client that does not read a large response is cut off", async () => {
      const conn = await connect();
      await conn.write(enc.encode("GET /static/big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n"));
      // Nobody reads for six times the bound: the server must give up meanwhile.
      // real clock: the server's write timeout is a real timer; stay silent past it
      await new Promise((r) => setTimeout(r, 3_000));
      const { head, bytes } = await readUntilClosed(conn);
      conn.close();
      assert.match(head, /^HTTP\/1\.1 200 /);
      assert.ok(bytes < SIZE, `the whole file arrived (${bytes} bytes)`);
    });
    await t.step("the server still answers", async () => {
      const res = await fetch(`${svc.urls.api}/default/.well-known/openid-configuration`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    });
  } finally {
    await svc.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--read-header-timeout and --idle-timeout stop startup with the reason", async () => {
  const cases = [
    [["--idle-timeout=2m"], {}, "idle_timeout"],
    [[], { MOCK_OIDC_READ_HEADER_TIMEOUT: "5s" }, "read_header_timeout"],
  ] as const;
  // Both start-ups side by side; each case's assertions name its key.
  await Promise.all(cases.map(async ([args, env, key]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...PERMISSIONS, MAIN, ...withLoopbackAddrs(args)],
      env: { JSON_CONFIG: "{}", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(out.stderr).split("\n")
      .filter((line) => line.startsWith("mock-oidc:"));
    assert.equal(out.code, 2, key);
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.match(lines[0], new RegExp(`"${key}" .* is not supported: Deno\\.serve \\(2\\.9\\)`));
  }));
});
