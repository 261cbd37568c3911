/**
 * The dev runner's start-up failures are one line naming the setting, like the services' (never a
 * stack trace), run as `deno task dev` runs it: its entry with the permissions of
 * `deploy/services.ts`, from the repository root. Each case fails before anything starts.
 */
import assert from "node:assert/strict";
import { SERVICES } from "../../services.ts";

const DEV = SERVICES.find((s) => s.name === "image-proxy")!.dev!;
const ROOT = new URL("../../../", import.meta.url);

async function runDev(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...DEV.permissions, DEV.entry, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A loopback port held for the duration of `fn`. */
async function withTakenPort(fn: (addr: string) => Promise<void>) {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    await fn(`127.0.0.1:${(taken.addr as Deno.NetAddr).port}`);
  } finally {
    taken.close();
  }
}

Deno.test("the S3 address taken: one line naming the setting, exit 2", async () => {
  await withTakenPort(async (addr) => {
    const ran = await runDev([], {
      IMGPROXY_DEV_S3_LISTEN: addr,
      IMGPROXY_DEV_LISTEN: "127.0.0.1:0",
    });
    assert.equal(ran.code, 2, ran.stderr);
    assert.equal(ran.stdout, "");
    assert.equal(
      ran.stderr,
      `image-proxy-dev: Cannot listen on ${addr} (s3): the address is already in use ` +
        "(change --s3-listen / IMGPROXY_DEV_S3_LISTEN)\n",
    );
  });
});

Deno.test("the proxy's address taken (as a flag): one line naming the setting, exit 2", async () => {
  await withTakenPort(async (addr) => {
    const ran = await runDev(["--listen", addr], { IMGPROXY_DEV_S3_LISTEN: "127.0.0.1:0" });
    assert.equal(ran.code, 2, ran.stderr);
    assert.equal(ran.stdout, "");
    assert.equal(
      ran.stderr,
      `image-proxy-dev: Cannot listen on ${addr} (proxy): the address is already in use ` +
        "(change --listen / IMGPROXY_DEV_LISTEN)\n",
    );
  });
});

Deno.test("an address outside the runner's network grant or malformed: one line, exit 2", async () => {
  // The proxy's address is a free port: the default (8082) may be held by `deno task dev`, which
  // another test file runs at the same time.
  const outside = await runDev([], {
    IMGPROXY_DEV_S3_LISTEN: "127.0.0.2:0",
    IMGPROXY_DEV_LISTEN: "127.0.0.1:0",
  });
  assert.equal(outside.code, 2, outside.stderr);
  assert.match(
    outside.stderr,
    /^image-proxy-dev: Cannot listen on 127\.0\.0\.2:0 \(s3\): the network permission does not cover 127\.0\.0\.2:0 .*IMGPROXY_DEV_S3_LISTEN\)\n$/,
  );
  const malformed = await runDev(["--listen", "nowhere"], {});
  assert.equal(malformed.code, 2, malformed.stderr);
  assert.equal(malformed.stderr.split("\n").length, 2, malformed.stderr);
  assert.match(malformed.stderr, /^image-proxy-dev: .*--listen.*expected host:port/);
});

Deno.test("--help names both settings and exits 0", async () => {
  const ran = await runDev(["--help"], {});
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /--listen\b.*IMGPROXY_DEV_LISTEN/s);
  assert.match(ran.stdout, /--s3-listen\b.*IMGPROXY_DEV_S3_LISTEN/s);
});
