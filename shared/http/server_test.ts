import assert from "node:assert/strict";
import { parseAddr, probeAddr, readTlsFiles, startServer } from "./server.ts";
import { SettingsError } from "../settings/mod.ts";
import { createLogger, silentLogger } from "../observe/log.ts";
import { evalUntilSigterm, skipSuite, waitUntil } from "@svc/testing";

Deno.test("parseAddr() reads Go-style listen addresses", () => {
  assert.deepEqual(parseAddr(":8080"), { hostname: "0.0.0.0", port: 8080 });
  assert.deepEqual(parseAddr("127.0.0.1:0"), { hostname: "127.0.0.1", port: 0 });
  assert.deepEqual(parseAddr("localhost:65535"), { hostname: "localhost", port: 65535 });
  assert.deepEqual(parseAddr("[::1]:9090"), { hostname: "::1", port: 9090 });
  for (const bad of ["8080", "", "host:", ":65536", "a:b", "::1:80", "[::1]"]) {
    assert.throws(() => parseAddr(bad), RangeError, bad);
  }
});

Deno.test("startServer() serves several named listeners and logs where each listens", async () => {
  const lines: string[] = [];
  const server = await startServer([
    { name: "api", addr: "127.0.0.1:0", handler: () => new Response("api") },
    { name: "metrics", addr: "127.0.0.1:0", handler: () => new Response("metrics") },
  ], { logger: createLogger({ write: (l) => lines.push(l) }), handleSignals: false });
  assert.equal(await (await fetch(server.urls.api)).text(), "api");
  assert.equal(await (await fetch(server.urls.metrics)).text(), "metrics");
  const listening = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "server_listening");
  assert.deepEqual(listening.map((l) => [l.listener, l.url]), [
    ["api", server.urls.api],
    ["metrics", server.urls.metrics],
  ]);
  await server.shutdown();
  await server.finished;
});

Deno.test("startServer() fails cleanly when an address is taken", async () => {
  const first = await startServer([{
    name: "api",
    addr: "127.0.0.1:0",
    handler: () => new Response(),
  }], {
    logger: silentLogger(),
    handleSignals: false,
  });
  const taken = first.urls.api.replace("http://", "");
  await assert.rejects(
    startServer([
      { name: "free", addr: "127.0.0.1:0", handler: () => new Response() },
      { name: "api", addr: taken, handler: () => new Response() },
    ], { logger: silentLogger(), handleSignals: false }),
    (e: SettingsError) => e instanceof SettingsError && e.cause instanceof Deno.errors.AddrInUse,
  );
  await first.shutdown();
});

Deno.test("shutdown lets an in-flight request finish within grace and refuses new ones", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  let started!: () => void;
  const inFlight = new Promise<void>((r) => started = r);
  let closedHook = false;
  const server = await startServer([{
    name: "api",
    addr: "127.0.0.1:0",
    handler: async () => {
      started();
      await gate;
      return new Response("done");
    },
  }], {
    logger: silentLogger(),
    handleSignals: false,
    shutdownGrace: 5_000,
    onShutdown: () => {
      closedHook = true;
    },
  });
  const pending = fetch(server.urls.api);
  await inFlight;
  const stopping = server.shutdown();
  await waitUntil(() => server.signal.aborted, { what: "the shutdown to start" });
  const refused = await fetch(server.urls.api + "/new");
  assert.equal(refused.status, 503);
  assert.equal(
    (await refused.json()).detail,
    "Cannot accept requests: the server is shutting down",
  );
  release();
  const res = await pending;
  assert.equal(await res.text(), "done");
  await stopping;
  assert.ok(closedHook);
  await assert.rejects(fetch(server.urls.api), "the listener is closed after the drain");
});

Deno.test("shutdown closes connections that outlive the grace period", async () => {
  const server = await startServer([{
    name: "api",
    addr: "127.0.0.1:0",
    handler: () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new Uint8Array([1]));
          },
        }),
      ),
  }], { logger: silentLogger(), handleSignals: false, shutdownGrace: 100 });
  const res = await fetch(server.urls.api);
  const reader = res.body!.getReader();
  await reader.read();
  const t0 = performance.now();
  await server.shutdown();
  assert.ok(performance.now() - t0 < 2_000);
  await assert.rejects(reader.read());
});

Deno.test("a SIGTERM starts the graceful shutdown", async () => {
  const code = `
    import { startServer } from "${new URL("./server.ts", import.meta.url)}";
    import { createLogger } from "${new URL("../observe/log.ts", import.meta.url)}";
    const s = await startServer([{ name: "api", addr: "127.0.0.1:0", handler: () => new Response("x") }],
      { logger: createLogger(), shutdownGrace: 1000 });
    await s.finished;
  `;
  const { code: status, out } = await evalUntilSigterm(code, '"server_listening"');
  assert.equal(status, 0);
  assert.match(out, /"msg":"shutdown_completed"/);
});

Deno.test("readTlsFiles() requires the pair and names the missing setting", async () => {
  assert.equal(await readTlsFiles({}), undefined);
  await assert.rejects(readTlsFiles({ certFile: "a.pem" }), /"tls-key-file" must be set/);
  await assert.rejects(
    readTlsFiles({ certFile: "a.pem" }, { cert: "--cert", key: "--key" }),
    (e: SettingsError) => e instanceof SettingsError && e.key === "--key",
  );
  await assert.rejects(readTlsFiles({ keyFile: "a.pem" }), /"tls-cert-file" must be set/);
  await assert.rejects(
    readTlsFiles({ certFile: "/nonexistent/c.pem", keyFile: "/nonexistent/k.pem" }),
    /cannot read "tls-cert-file" \(NotFound\)/,
  );
});

Deno.test({
  name: "startServer() serves TLS from PEM files",
  ignore: skipSuite({
    module: import.meta.url,
    part: "TLS",
    needs: hasOpenssl() ? undefined : "the openssl command (to make test certificates)",
  }),
  async fn() {
    const dir = await Deno.makeTempDir();
    const cert = `${dir}/cert.pem`;
    const key = `${dir}/key.pem`;
    // A CA and a leaf it signs: rustls refuses a self-signed CA certificate as a server's own.
    const script = `set -e; cd "${dir}"
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \\
        -out ca.pem -days 1 -subj /CN=test-ca
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem \\
        -out leaf.csr -subj /CN=localhost
      printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > ext.cnf
      openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \\
        -extfile ext.cnf -out cert.pem`;
    const gen = await new Deno.Command("bash", {
      args: ["-c", script],
      stdout: "null",
      stderr: "null",
    }).output();
    assert.ok(gen.success);
    const tls = await readTlsFiles({ certFile: cert, keyFile: key });
    const server = await startServer(
      [{ name: "api", addr: "127.0.0.1:0", handler: () => new Response("secure"), tls }],
      { logger: silentLogger(), handleSignals: false },
    );
    assert.match(server.urls.api, /^https:\/\/127\.0\.0\.1:\d+$/);
    const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${dir}/ca.pem`)] });
    const res = await fetch(server.urls.api, { client });
    assert.equal(await res.text(), "secure");
    client.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  },
});

function hasOpenssl(): boolean {
  try {
    return new Deno.Command("openssl", { args: ["version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

Deno.test("readTlsFiles() names the setting of a swapped or non-PEM file, never its content", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cert = `${dir}/c.pem`;
    const key = `${dir}/k.pem`;
    const junk = `${dir}/junk.pem`;
    await Deno.writeTextFile(
      cert,
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    );
    await Deno.writeTextFile(
      key,
      "-----BEGIN PRIVATE KEY-----\nSECRETKEY\n-----END PRIVATE KEY-----\n",
    );
    await Deno.writeTextFile(junk, "not pem at all");
    assert.ok(await readTlsFiles({ certFile: cert, keyFile: key }));
    for (
      const [files, setting, text] of [
        [{ certFile: key, keyFile: cert }, "tls-cert-file", /holds a private key: swapped/],
        [{ certFile: cert, keyFile: cert }, "tls-key-file", /holds a certificate: swapped/],
        [{ certFile: junk, keyFile: key }, "tls-cert-file", /holds no PEM certificate$/],
        [{ certFile: cert, keyFile: junk }, "tls-key-file", /holds no PEM private key$/],
      ] as const
    ) {
      await assert.rejects(readTlsFiles(files), (e: SettingsError) => {
        assert.equal(e.key, setting);
        assert.match(e.message, text);
        assert.ok(!e.message.includes("SECRETKEY"));
        return true;
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "startServer() turns a listener that cannot start into a SettingsError naming its address",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const addr = `127.0.0.1:${(taken.addr as Deno.NetAddr).port}`;
    const logger = createLogger({ write: () => {} });
    try {
      await assert.rejects(
        startServer([{ name: "api", addr, handler: () => new Response() }], {
          logger,
          handleSignals: false,
        }),
        (e: SettingsError) =>
          e instanceof SettingsError &&
          e.message === `Cannot listen on ${addr} (api): the address is already in use`,
      );
      await assert.rejects(
        startServer([{
          name: "api",
          addr: "no-such-host.invalid:0",
          handler: () => new Response(),
        }], {
          logger,
          handleSignals: false,
        }),
        (e: SettingsError) =>
          e instanceof SettingsError &&
          /no-such-host\.invalid:0 \(api\): the host name cannot be resolved/.test(e.message),
      );
    } finally {
      taken.close();
    }
  },
});

Deno.test({
  name: "startServer() and probeAddr() name the setting that moves a listener that cannot start",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const addr = `127.0.0.1:${(taken.addr as Deno.NetAddr).port}`;
    const setting = "--metrics-addr / SVC_METRICS_ADDR";
    const expected = `Cannot listen on ${addr} (metrics): the address is already in use ` +
      `(change ${setting})`;
    try {
      await assert.rejects(
        startServer([{ name: "metrics", addr, setting, handler: () => new Response() }], {
          logger: silentLogger(),
          handleSignals: false,
        }),
        (e: Error) => e instanceof SettingsError && e.message === expected,
      );
      assert.throws(
        () => probeAddr({ name: "metrics", addr, setting }),
        (e: Error) => e instanceof SettingsError && e.message === expected,
      );
    } finally {
      taken.close();
    }
  },
});

Deno.test("a listener outside the network grant names the host:port and how to grant it", async (t) => {
  const script = new URL("./testdata/listen_cli.ts", import.meta.url).pathname;
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const run = async (net: string, args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", `--allow-net=${net}`, "--allow-read", script, ...args],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
  };
  await t.step("inside the grant it listens", async () => {
    const out = await run(`127.0.0.1:${port}`, [`127.0.0.1:${port}`]);
    assert.equal(out.stdout, "listening\n", out.stderr);
    assert.equal(out.code, 0);
  });
  await t.step("outside: the run flag to add, and the setting to change (exit 2)", async () => {
    const out = await run("127.0.0.1:1", [`127.0.0.1:${port}`]);
    assert.equal(
      out.stderr,
      `demo: Cannot listen on 127.0.0.1:${port} (api): the network permission does not cover ` +
        `127.0.0.1:${port} (run with --allow-net=127.0.0.1:${port}; or change --addr / DEMO_ADDR)\n`,
    );
    assert.equal(out.code, 2);
  });
  await t.step("outside, with the service's own way to grant it", async () => {
    const out = await run("127.0.0.1:1", [`127.0.0.1:${port}`, "DEMO_ALLOW_NET"]);
    assert.equal(
      out.stderr,
      `demo: Cannot listen on 127.0.0.1:${port} (api): the network permission does not cover ` +
        `127.0.0.1:${port} (add 127.0.0.1:${port} to DEMO_ALLOW_NET; or change --addr / ` +
        `DEMO_ADDR)\n`,
    );
  });
});

Deno.test({
  name: "startServer() on :port listens on IPv4 and IPv6 where the host has both",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    const server = await startServer(
      [{ name: "api", addr: `:${port}`, handler: () => new Response("both") }],
      { logger: silentLogger(), handleSignals: false },
    );
    try {
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), "both");
      let v6 = true;
      try {
        Deno.listen({ hostname: "::1", port: 0 }).close();
      } catch {
        v6 = false; // no IPv6 on this host: IPv4 alone is the documented fallback
      }
      if (v6) assert.equal(await (await fetch(`http://[::1]:${port}/`)).text(), "both");
    } finally {
      await server.shutdown();
    }
  },
});

Deno.test("probeAddr() resolves port 0 and refuses an address in use, shared or not", async (t) => {
  await t.step("port 0 becomes a free port, the host part kept", () => {
    const addr = probeAddr({ name: "api", addr: "127.0.0.1:0" });
    const port = Number(addr.split(":")[1]);
    assert.ok(port > 0);
    const again = Deno.listen({ hostname: "127.0.0.1", port }); // released: bindable
    again.close();
  });
  for (const reusePort of [false, true]) {
    await t.step(
      `a listener there${reusePort ? " with SO_REUSEPORT" : ""} is a SettingsError`,
      () => {
        const holder = Deno.listen({ hostname: "127.0.0.1", port: 0, reusePort });
        const addr = `127.0.0.1:${(holder.addr as Deno.NetAddr).port}`;
        try {
          assert.throws(() => probeAddr({ name: "api", addr }), (e: Error) => {
            assert.ok(e instanceof SettingsError);
            assert.equal(
              e.message,
              `Cannot listen on ${addr} (api): the address is already in use`,
            );
            return true;
          });
        } finally {
          holder.close();
        }
      },
    );
  }
});
