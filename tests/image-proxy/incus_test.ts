/**
 * The Incus side of deploy/image-proxy/README.md, with the real client and daemon (Debian
 * bookworm-backports `incus-base` / `incus-client`): `incus remote add <name> https://…
 * --protocol simplestreams --public` against the recipe's nginx ingress in front of the proxy
 * process and a signature-checking s3rver, then `incus image list`, `incus image info` and
 * `incus image copy` twice. The mirror holds one real image (a busybox root file system as
 * squashfs and its metadata tarball), so the daemon verifies and unpacks what it downloaded. The
 * second copy's artifacts come from the ingress cache (HIT in its log), and the catalog reached
 * Incus gzipped.
 *
 * The test starts its own `incusd` in a temporary INCUS_DIR (and INCUS_CONF for the client), both
 * trusting the ingress's self-signed certificate through SSL_CERT_FILE, and stops it afterwards.
 * Skipped, saying why, where incusd, busybox, mksquashfs or nginx is missing or not root.
 */
import assert from "node:assert/strict";
import { skipSuite, waitUntil } from "@svc/testing";
import { startProxyProcess, startStore } from "./_test_support.ts";
import { ingressMissing, startIngress } from "./_ingress_support.ts";

const INCUSD = "/usr/libexec/incus/incusd";

function skipReason(): string | undefined {
  for (
    const [path, why] of [
      [INCUSD, "incusd (apt-get install -t bookworm-backports incus-base incus-client)"],
      ["/usr/bin/incus", "the incus client (incus-client)"],
      ["/bin/busybox", "/bin/busybox (busybox-static, to build the test image)"],
      ["/usr/bin/mksquashfs", "mksquashfs (squashfs-tools, to build the test image)"],
    ]
  ) {
    try {
      Deno.statSync(path);
    } catch {
      return why;
    }
  }
  if (Deno.uid() !== 0) return "root (incusd runs as root)";
  return ingressMissing();
}

async function run(cmd: string, args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(cmd, { args, env, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${text.decode(out.stderr)}`);
  }
  return text.decode(out.stdout);
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A busybox image: `incus.tar.xz` (metadata) and `rootfs.squashfs`. */
async function buildImage(dir: string) {
  const root = `${dir}/rootfs`;
  for (const d of ["bin", "sbin", "etc", "dev", "proc", "sys", "tmp", "run"]) {
    await Deno.mkdir(`${root}/${d}`, { recursive: true });
  }
  await Deno.copyFile("/bin/busybox", `${root}/bin/busybox`);
  await Deno.chmod(`${root}/bin/busybox`, 0o755);
  await Deno.symlink("busybox", `${root}/bin/sh`);
  await Deno.writeTextFile(
    `${dir}/metadata.yaml`,
    "architecture: x86_64\ncreation_date: 1700000000\nproperties:\n  description: busybox\n",
  );
  await run("tar", ["-cJf", `${dir}/incus.tar.xz`, "-C", dir, "metadata.yaml"]);
  await run("mksquashfs", [root, `${dir}/rootfs.squashfs`, "-noappend", "-quiet"]);
  return {
    meta: await Deno.readFile(`${dir}/incus.tar.xz`),
    rootfs: await Deno.readFile(`${dir}/rootfs.squashfs`),
  };
}

/** A simplestreams catalog of the one image, under `images/busybox/…`. */
async function catalog(meta: Uint8Array, rootfs: Uint8Array) {
  const dir = "images/busybox/1.36/amd64/default/20250824_13:00";
  const combined = new Uint8Array(meta.byteLength + rootfs.byteLength);
  combined.set(meta);
  combined.set(rootfs, meta.byteLength);
  const fingerprint = await sha256(combined);
  const product = "busybox:1.36:amd64:default";
  // Hex padding (ignored by Incus) makes the catalog large and only about halfway compressible,
  // so its gzip size is told apart from the identity size and from every artifact's.
  const padding = Array.from(
    { length: 4 },
    () =>
      Array.from(
        crypto.getRandomValues(new Uint8Array(50_000)),
        (b) => b.toString(16).padStart(2, "0"),
      ).join(""),
  ).join("");
  const images = {
    padding,
    "content_id": "images",
    datatype: "image-downloads",
    format: "products:1.0",
    products: {
      [product]: {
        aliases: "busybox/1.36/default,busybox/1.36",
        arch: "amd64",
        os: "busybox",
        release: "1.36",
        release_title: "Busybox 1.36",
        variant: "default",
        versions: {
          "20250824_13:00": {
            items: {
              "incus.tar.xz": {
                ftype: "incus.tar.xz",
                path: `${dir}/incus.tar.xz`,
                sha256: await sha256(meta),
                size: meta.byteLength,
                combined_squashfs_sha256: fingerprint,
              },
              "root.squashfs": {
                ftype: "squashfs",
                path: `${dir}/rootfs.squashfs`,
                sha256: await sha256(rootfs),
                size: rootfs.byteLength,
              },
            },
          },
        },
      },
    },
  };
  const index = {
    format: "index:1.0",
    index: {
      images: {
        datatype: "image-downloads",
        path: "streams/v1/images.json",
        format: "products:1.0",
        products: [product],
      },
    },
  };
  return { dir, fingerprint, images, index };
}

/** Starts incusd in `dir`; resolves once its socket answers. */
async function startIncusd(dir: string, env: Record<string, string>) {
  const child = new Deno.Command(INCUSD, {
    args: ["--group", "root"],
    env: { ...env, INCUS_SKIP_INSTANCE_TYPES: "true" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await waitUntil(
      () => run("incus", ["query", "/1.0"], env).then(() => true, () => false),
      { what: "incusd answering on its socket", timeoutMs: 120_000, intervalMs: 250 },
    );
  } catch (err) {
    child.kill("SIGKILL");
    await child.status;
    throw err;
  }
  return {
    async stop() {
      await run("incus", ["admin", "shutdown"], env).catch(() => child.kill("SIGKILL"));
      await child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

Deno.test({
  name: "Incus reads the mirror through the ingress: remote add, list, info, copy twice",
  ignore: skipSuite({ module: import.meta.url, needs: skipReason() }),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "incus-mirror-" });
    // Each part is stopped in reverse order, also when a later one fails to start.
    const stops: (() => Promise<unknown>)[] = [
      () => Deno.remove(work, { recursive: true }).catch(() => {}),
    ];
    const started = <T>(value: T, stop: (v: T) => Promise<unknown>): T => {
      stops.push(() => stop(value));
      return value;
    };
    try {
      const store = started(await startStore(), (s) => s.close());
      const { meta, rootfs } = await buildImage(work);
      const cat = await catalog(meta, rootfs);
      await store.put(`${cat.dir}/incus.tar.xz`, meta, { ContentType: "application/x-xz" });
      await store.put(`${cat.dir}/rootfs.squashfs`, rootfs);
      const json = (doc: unknown) => new TextEncoder().encode(JSON.stringify(doc, null, 2));
      const asJson = { ContentType: "application/json" };
      await store.put("streams/v1/images.json", json(cat.images), asJson);
      await store.put("streams/v1/index.json", json(cat.index), asJson);
      const proxy = started(
        await startProxyProcess({ endpoint: store.s3.endpoint }),
        (p) => p.stop(),
      );
      const ingress = started(await startIngress(new URL(proxy.url).host), (i) => i.stop());
      const incusDir = `${work}/incus`;
      await Deno.mkdir(incusDir);
      const env = {
        INCUS_DIR: incusDir,
        INCUS_CONF: `${work}/client`,
        SSL_CERT_FILE: ingress.certFile,
        PATH: Deno.env.get("PATH") ?? "/usr/sbin:/usr/bin:/sbin:/bin",
        HOME: work,
      };
      started(await startIncusd(incusDir, env), (d) => d.stop());
      const incus = (...args: string[]) => run("incus", args, env);
      await t.step("incus remote add … --protocol simplestreams --public", async () => {
        await incus(
          "remote",
          "add",
          "mirror",
          ingress.https,
          "--protocol",
          "simplestreams",
          "--public",
        );
        const remotes = JSON.parse(await incus("remote", "list", "--format", "json"));
        assert.equal(remotes.mirror.Protocol, "simplestreams");
        assert.equal(remotes.mirror.Addr, ingress.https);
      });
      await t.step("incus image list and info read the gzipped catalog", async () => {
        const list = JSON.parse(await incus("image", "list", "mirror:", "--format", "json"));
        assert.equal(list.length, 1);
        assert.equal(list[0].fingerprint, cat.fingerprint);
        const info = await incus("image", "info", "mirror:busybox/1.36");
        assert.match(info, new RegExp(`Fingerprint: ${cat.fingerprint}`));
        const identity = json(cat.images).byteLength;
        const sizes = proxy.records().filter((r) =>
          r.msg === "request completed" && r["http.route"] === "object"
        ).map((r) => r["http.response.body.size"] as number);
        assert.ok(
          sizes.some((n) => n > identity * 0.3 && n < identity * 0.8),
          `images.json (${identity} bytes) gzipped on the wire: ${sizes}`,
        );
        assert.ok(!sizes.includes(identity), "never sent as identity");
      });
      await t.step(
        "incus image copy twice: the second pull comes from the ingress cache",
        async () => {
          await incus("image", "copy", "mirror:busybox/1.36", "local:", "--alias", "bb");
          const local = JSON.parse(await incus("image", "list", "local:", "--format", "json"));
          assert.equal(local[0].fingerprint, cat.fingerprint);
          const hitsBefore = (await ingress.accessLog()).match(/ GET 200 HIT /g)?.length ?? 0;
          await incus("image", "delete", "local:bb");
          await incus("image", "copy", "mirror:busybox/1.36", "local:", "--alias", "bb");
          const hits = (await ingress.accessLog()).match(/ GET 200 HIT /g)?.length ?? 0;
          assert.ok(hits - hitsBefore >= 2, `artifact hits: ${hits - hitsBefore}`);
        },
      );
    } finally {
      for (const stop of stops.reverse()) await stop();
    }
  },
});
