import assert from "node:assert/strict";
import { connect } from "node:tls";
import { startService } from "@svc/testing";
import { MAIN, PERMISSIONS, withLoopbackAddrs } from "./_test_support.ts";
import { runShipped } from "../_shipped.ts";

async function runInvalid(env: Record<string, string>, args: string[] = []) {
  const out = await runShipped("mock-oidc", { args: withLoopbackAddrs(args), env });
  // Deno itself may warn on stderr (e.g. about workspace members); keep our lines only.
  const stderr = out.stderr.split("\n")
    .filter((line) => line.startsWith("mock-oidc:")).join("\n");
  return { code: out.code, stderr };
}

Deno.test("an invalid configuration stops startup with one line naming the key", async () => {
  const cases: [Record<string, string>, string][] = [
    [
      { JSON_CONFIG: '{"tokenProvider":{"keyProvider":{"algorithm":"HS256"}}}' },
      "tokenProvider.keyProvider.algorithm",
    ],
    [{ JSON_CONFIG: '{"interactiveLogin":"yes"}' }, "interactiveLogin"],
    // A directory cannot be read as a file (a missing file starts with defaults, as upstream).
    [{ JSON_CONFIG_PATH: "/" }, "JSON_CONFIG_PATH"],
  ];
  for (const [env, key] of cases) {
    const { code, stderr } = await runInvalid(env);
    assert.notEqual(code, 0);
    assert.equal(stderr.split("\n").length, 1, stderr);
    assert.ok(stderr.includes(key), stderr);
  }
});

Deno.test("httpServer {ssl:{}} serves TLS with a generated localhost certificate", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSIONS, MAIN, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
    env: { JSON_CONFIG: '{"httpServer":{"type":"NettyWrapper","ssl":{}}}' },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let apiUrl: string | undefined;
    while (!apiUrl) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`exited before listening: ${buffer}`);
      buffer += value;
      apiUrl = listeningUrl(buffer, "api");
    }
    reader.releaseLock();
    const port = Number(new URL(apiUrl).port);
    const subject = await new Promise<string>((resolve, reject) => {
      const socket = connect({
        host: "127.0.0.1",
        port,
        servername: "localhost",
        rejectUnauthorized: false,
      }, () => {
        const cert = socket.getPeerCertificate();
        socket.end();
        resolve(String(cert.subject?.CN));
      });
      socket.on("error", reject);
    });
    assert.equal(subject, "localhost");
  } finally {
    child.kill("SIGTERM");
    await child.stdout.cancel().catch(() => {});
    await child.status;
  }
});

Deno.test("SERVER_HOSTNAME and PORT set the listen address; LOGBACK_CONFIG is accepted", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const service = await startService({
    entry: MAIN,
    permissions: [...PERMISSIONS],
    args: ["--metrics-addr", "127.0.0.1:0"],
    env: {
      JSON_CONFIG: "{}",
      SERVER_HOSTNAME: "127.0.0.1",
      PORT: String(port),
      LOGBACK_CONFIG: "/nonexistent/logback.xml",
    },
    timeoutMs: 20_000,
  });
  try {
    assert.equal(new URL(service.url).port, String(port));
    const res = await fetch(`${service.url}/default/.well-known/openid-configuration`);
    assert.equal((await res.json()).issuer, `http://127.0.0.1:${port}/default`);
  } finally {
    await service.stop();
  }
});

/** The URL of the first complete `server_listening` log line of `listener`, if any. */
function listeningUrl(output: string, listener: string): string | undefined {
  for (const line of output.split("\n").slice(0, -1)) {
    try {
      const entry = JSON.parse(line);
      if (entry.msg === "server_listening" && entry.listener === listener) return entry.url;
    } catch { /* not a JSON log line */ }
  }
  return undefined;
}

Deno.test("upstream configurations start: a missing JSON_CONFIG_PATH, loginPagePath to a missing file, string scalars", async () => {
  const service = await startService({
    entry: MAIN,
    permissions: [...PERMISSIONS],
    args: ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
    env: {
      JSON_CONFIG_PATH: "/nonexistent/mock-oidc.json",
      LOGBACK_CONFIG: "/nonexistent/logback.xml",
      LOG_LEVEL: "TRACE", // logback's level, upper case: debug here
    },
    listeners: ["api", "metrics"],
    timeoutMs: 20_000,
  });
  try {
    const discovery = await fetch(`${service.url}/default/.well-known/openid-configuration`);
    assert.equal(discovery.status, 200);
    await discovery.body?.cancel();
  } finally {
    await service.stop();
  }
  assert.match(service.output(), /JSON_CONFIG_PATH names no file/);
  assert.match(service.output(), /"level":"debug"/, "TRACE enables debug logging");
  const login = await startService({
    entry: MAIN,
    permissions: [...PERMISSIONS],
    args: ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
    env: {
      JSON_CONFIG: JSON.stringify({
        interactiveLogin: "true",
        loginPagePath: "/nonexistent/login.html",
        tokenCallbacks: [{ issuerId: "up", tokenExpiry: "120", requestMappings: [] }],
      }),
    },
    listeners: ["api", "metrics"],
    timeoutMs: 20_000,
  });
  try {
    const page = await fetch(
      `${login.url}/up/authorize?client_id=c&response_type=code&redirect_uri=http://localhost/cb`,
    );
    assert.equal(page.status, 404, "the missing login page is a 404, not a failed start");
    await page.body?.cancel();
    const token = await fetch(`${login.url}/up/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=c&client_secret=s",
    });
    assert.equal(token.status, 200);
    assert.equal((await token.json()).expires_in, 120);
  } finally {
    await login.stop();
  }
});

Deno.test("startup errors exit 2 with one clean line naming what to fix", async () => {
  const dir = await Deno.makeTempDir();
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const cert = `${dir}/cert.pem`;
    const key = `${dir}/key.pem`;
    const junk = `${dir}/junk.pem`;
    await Deno.writeTextFile(
      cert,
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    );
    await Deno.writeTextFile(key, "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
    await Deno.writeTextFile(junk, "garbage");
    const port = (taken.addr as Deno.NetAddr).port;
    const cases: [Record<string, string>, string[], RegExp][] = [
      [{}, ["--rate-limit-enabled", "--rate-limit-rps=0"], /rate-limit-rps.*greater than 0/],
      [{}, ["--tls-cert-file", key, "--tls-key-file", cert], /MOCK_OIDC_TLS_CERT_FILE.*swapped/],
      [{}, ["--tls-cert-file", junk, "--tls-key-file", key], /holds no PEM certificate/],
      [{}, ["--tls-cert-file", cert, "--tls-key-file", key], /not valid PEM/],
      [
        {},
        ["--addr", `127.0.0.1:${port}`],
        new RegExp(`127\\.0\\.0\\.1:${port} \\(api\\): the address is already in use`),
      ],
      [
        { SERVER_HOSTNAME: "no-such-host.invalid", SERVER_PORT: "0" },
        ["--addr", ""],
        /cannot be resolved/,
      ],
    ];
    for (const [env, args, expected] of cases) {
      const { code, stderr } = await runInvalid({ JSON_CONFIG: "{}", ...env }, args);
      assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
      assert.equal(stderr.split("\n").length, 1, stderr);
      assert.match(stderr, expected);
      assert.doesNotMatch(stderr, /MIIE|\n\s+at /);
    }
  } finally {
    taken.close();
    await Deno.remove(dir, { recursive: true });
  }
});
