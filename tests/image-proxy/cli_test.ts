/**
 * The entry point as an operator meets it: `--help`, a YAML configuration file, the standard
 * AWS endpoint variable, settings errors (exit 2, the key named, the value never printed), and
 * SIGINT.
 */
import assert from "node:assert/strict";
import { S3RVER_CREDENTIALS } from "../../deploy/dev/image-proxy/s3_server.ts";
import { devPermissions } from "../../deploy/dev/image-proxy/run.ts";
import { BUCKET, freePort, PREFIX, startStore } from "./_test_support.ts";
import { runCommand, startService } from "@svc/testing";

const ENTRY = new URL("../../services/image-proxy/main.ts", import.meta.url).pathname;

function run(args: string[], permissions: string[]) {
  return runCommand(Deno.execPath(), ["run", ...permissions, ENTRY, ...args]);
}

Deno.test("--help lists every key and exits 0", async () => {
  const { code, stdout } = await run(
    ["--help"],
    devPermissions("127.0.0.1:1", "http://127.0.0.1:2"),
  );
  assert.equal(code, 0);
  for (
    const key of [
      "--bucket",
      "--proxy.max-streams",
      "IMGPROXY_PROXY_MAX_STREAMS",
      "--metrics-insecure",
      "--config",
    ]
  ) {
    assert.ok(stdout.includes(key), key);
  }
});

Deno.test("settings errors exit 2 naming the key, never the value", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/bad.yaml`, "bucket: b\nproxy:\n  max_streamz: 5\n");
    const perms = devPermissions("127.0.0.1:1", "http://127.0.0.1:2");
    const unknown = await run(["--config", `${dir}/bad.yaml`], perms);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /max_streamz/);
    const bad = await run(["--bucket", "b", "--proxy.max-streams", "zero-secret"], perms);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /proxy\.max_streams/);
    assert.ok(!bad.stderr.includes("zero-secret"));
    const missing = await run([], perms);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /bucket/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a YAML file and AWS_ENDPOINT_URL_S3 configure the proxy; SIGINT stops it cleanly", async () => {
  const store = await startStore();
  const dir = await Deno.makeTempDir();
  const listen = `127.0.0.1:${await freePort()}`;
  try {
    await Deno.writeTextFile(
      `${dir}/proxy.yaml`,
      `bucket: ${BUCKET}\nprefix: ${PREFIX}\nregion: us-east-1\nlisten: ${listen}\n` +
        "s3:\n  force_path_style: true\nproxy:\n  shutdown_delay: 0s\n  readiness_interval: 200ms\n",
    );
    const svc = await startService({
      entry: ENTRY,
      permissions: devPermissions(listen, store.s3.endpoint),
      args: ["--config", `${dir}/proxy.yaml`],
      env: {
        AWS_ENDPOINT_URL_S3: store.s3.endpoint,
        AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      },
    });
    const res = await fetch(svc.url + "/streams/v1/index.json");
    assert.equal(res.status, 200);
    assert.equal((await res.json()).format, "index:1.0");
    assert.equal(await svc.stop("SIGINT"), 0);
    assert.ok(svc.output().includes('"msg":"shutdown_completed"'));
  } finally {
    await Deno.remove(dir, { recursive: true });
    await store.close();
  }
});
