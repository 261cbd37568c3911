/**
 * image-proxy as shipped: the permission and V8 flags of `deploy/services.ts` as a compile run
 * computes them (`IMGPROXY_ALLOW_NET` naming the test's listen address and store, the way an
 * operator compiles for another store), a YAML configuration file, credentials from the AWS
 * variables. Ready on /readyz and serving the mirror; a host outside the grant is named, with how
 * to grant it, at start-up and in the log of a failed storage call.
 */
import assert from "node:assert/strict";
import { freePort, runShipped, startShipped, takenPort } from "../_shipped.ts";
import { S3RVER_CREDENTIALS } from "../../deploy/dev/image-proxy/s3_server.ts";
import { BUCKET, PREFIX, startStore, type Store } from "./_test_support.ts";

const AWS = {
  AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
};
const GRANT = (hostPort: string) =>
  `add ${hostPort} to IMGPROXY_ALLOW_NET when compiling (deno task compile), or to ` +
  `--allow-net when running from source`;

/** Writes the YAML configuration file (nested sections, as an operator writes it). */
async function configFile(
  dir: string,
  o: { listen: string; endpoint: string; pathStyle: boolean },
) {
  const path = `${dir}/image-proxy.yaml`;
  await Deno.writeTextFile(
    path,
    [
      `bucket: ${BUCKET}`,
      `prefix: ${PREFIX}`,
      "region: us-east-1",
      `listen: "${o.listen}"`,
      "s3:",
      `  endpoint: ${o.endpoint}`,
      `  force_path_style: ${o.pathStyle}`,
      "proxy:",
      "  readiness_interval: 200ms",
      "  shutdown_delay: 0s",
      "",
    ].join("\n"),
  );
  return path;
}

/** The part of stderr that is not a JSON log record. */
const plainLines = (text: string) => text.split("\n").filter((l) => l && !l.startsWith("{"));

async function withStore(body: (store: Store, dir: string) => Promise<void>): Promise<void> {
  const store = await startStore();
  const dir = await Deno.makeTempDir({ prefix: "image_proxy_shipped_" });
  try {
    await body(store, dir);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function readyz(url: string) {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: await res.json() };
}

async function until(
  url: string,
  pred: (r: { status: number; body: { reason?: string } }) => boolean,
) {
  for (let i = 0; i < 600; i++) {
    const r = await readyz(url);
    if (pred(r)) return r;
    // real clock: the interval of a bounded poll (600 tries) on a probe that has no event to await
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`readiness never matched: ${JSON.stringify(await readyz(url))}`);
}

Deno.test({
  name: "image-proxy as shipped reads its YAML file and serves the mirror (no env grant for YAML)",
  sanitizeResources: false,
  async fn() {
    await withStore(async (store, dir) => {
      const listen = `127.0.0.1:${freePort()}`;
      const s3 = new URL(store.s3.endpoint).host;
      const config = await configFile(dir, {
        listen,
        endpoint: store.s3.endpoint,
        pathStyle: true,
      });
      const svc = await startShipped("image-proxy", {
        args: ["--config", config],
        // Set, the yaml package's debug switches would dump the file: the kit hides them.
        env: { ...AWS, LOG_TOKENS: "1", LOG_STREAM: "1" },
        compileEnv: { IMGPROXY_ALLOW_NET: `${listen},${s3}` },
      });
      try {
        await until(svc.url, (r) => r.status === 200);
        const res = await fetch(`${svc.url}/streams/v1/index.json`);
        assert.equal(res.status, 200);
        assert.equal((await res.json()).format, "index:1.0");
        assert.doesNotMatch(svc.output(), /^\| /m); // no LOG_TOKENS dump
      } finally {
        assert.equal(await svc.stop(), 0, svc.output());
      }
    });
  },
});

Deno.test("image-proxy as shipped: a listen address outside the grant names it and the grant", async () => {
  await withStore(async (store, dir) => {
    const listen = `127.0.0.1:${freePort()}`;
    const config = await configFile(dir, { listen, endpoint: store.s3.endpoint, pathStyle: true });
    const out = await runShipped("image-proxy", {
      args: ["--config", config],
      env: AWS,
      compileEnv: { IMGPROXY_ALLOW_NET: new URL(store.s3.endpoint).host },
    });
    assert.deepEqual(plainLines(out.stderr), [
      `image-proxy: Cannot listen on ${listen} (api): the network permission does not cover ` +
      `${listen} (${GRANT(listen)}; or change --listen / IMGPROXY_LISTEN)`,
    ]);
    assert.equal(out.code, 2);
  });
});

Deno.test("image-proxy as shipped: an address in use names --listen / IMGPROXY_LISTEN", async () => {
  await withStore(async (store, dir) => {
    const taken = takenPort();
    try {
      const config = await configFile(dir, {
        listen: taken.addr,
        endpoint: store.s3.endpoint,
        pathStyle: true,
      });
      const out = await runShipped("image-proxy", {
        args: ["--config", config],
        env: AWS,
        compileEnv: { IMGPROXY_ALLOW_NET: `${taken.addr},${new URL(store.s3.endpoint).host}` },
      });
      assert.deepEqual(plainLines(out.stderr), [
        `image-proxy: Cannot listen on ${taken.addr} (api): the address is already in use ` +
        `(change --listen / IMGPROXY_LISTEN)`,
      ]);
      assert.equal(out.code, 2);
    } finally {
      taken.close();
    }
  });
});

Deno.test("image-proxy as shipped: a store outside the grant is refused at start-up", async () => {
  await withStore(async (store, dir) => {
    const listen = `127.0.0.1:${freePort()}`;
    const s3 = new URL(store.s3.endpoint).host;
    const config = await configFile(dir, { listen, endpoint: store.s3.endpoint, pathStyle: true });
    const out = await runShipped("image-proxy", {
      args: ["--config", config],
      env: AWS,
      compileEnv: { IMGPROXY_ALLOW_NET: listen },
    });
    assert.deepEqual(plainLines(out.stderr), [
      `image-proxy: Cannot use the store at ${s3}: the network permission does not cover it ` +
      `(${GRANT(s3)}; or change --s3.endpoint / IMGPROXY_S3_ENDPOINT (or AWS_ENDPOINT_URL_S3 / ` +
      `AWS_ENDPOINT_URL))`,
    ]);
    assert.equal(out.code, 2);
  });
});

Deno.test("image-proxy as shipped: a second store outside the grant is refused at start-up", async () => {
  await withStore(async (store, dir) => {
    const listen = `127.0.0.1:${freePort()}`;
    const s3 = new URL(store.s3.endpoint).host;
    const second = `127.0.0.1:${freePort()}`;
    const config = await configFile(dir, { listen, endpoint: store.s3.endpoint, pathStyle: true });
    const out = await runShipped("image-proxy", {
      args: [
        "--config",
        config,
        "--secondary.bucket",
        BUCKET,
        "--secondary.endpoint",
        `http://${second}`,
      ],
      env: AWS,
      compileEnv: { IMGPROXY_ALLOW_NET: `${listen},${s3}` },
    });
    assert.deepEqual(plainLines(out.stderr), [
      `image-proxy: Cannot use the store at ${second}: the network permission does not cover it ` +
      `(${GRANT(second)}; or change --secondary.endpoint / IMGPROXY_SECONDARY_ENDPOINT (or ` +
      `AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL))`,
    ]);
    assert.equal(out.code, 2);
  });
});

Deno.test({
  name: "image-proxy as shipped: a storage call denied by the grant logs the host and the grant",
  sanitizeResources: false,
  async fn() {
    await withStore(async (store, dir) => {
      // Virtual-hosted addressing sends the calls to <bucket>.localhost:port, which the grant
      // (the endpoint's own host) does not cover.
      const listen = `127.0.0.1:${freePort()}`;
      const port = new URL(store.s3.endpoint).port;
      const endpoint = `http://localhost:${port}`;
      const denied = `${BUCKET}.localhost:${port}`;
      const config = await configFile(dir, { listen, endpoint, pathStyle: false });
      const svc = await startShipped("image-proxy", {
        args: ["--config", config],
        env: AWS,
        compileEnv: { IMGPROXY_ALLOW_NET: `${listen},localhost:${port}` },
      });
      try {
        const r = await until(svc.url, (r) => r.body.reason !== "starting");
        assert.equal(r.status, 503);
        assert.equal(r.body.reason, "s3_misconfigured");
        const res = await fetch(`${svc.url}/streams/v1/index.json`);
        assert.equal(res.status, 500);
        await res.body?.cancel();
        const permission = `the network permission does not cover ${denied} (${GRANT(denied)})`;
        const records = svc.output().split("\n").filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l));
        const probe = records.filter((r) => r.msg === "storage permission denied");
        assert.equal(probe.length, 1, "logged once, not on every probe");
        assert.equal(probe[0].permission, permission);
        const failed = records.find((r) => r.msg === "request failed");
        assert.equal(failed?.permission, permission);
      } finally {
        await svc.stop();
      }
    });
  },
});
