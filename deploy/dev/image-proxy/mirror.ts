/**
 * A small but real simplestreams mirror, as Incus reads one: `streams/v1/index.json`, the
 * `streams/v1/images.json` product catalogue, and image files whose sizes and SHA-256 sums match
 * the catalogue, laid out like images.linuxcontainers.org (version directories with a colon).
 * File contents are deterministic pseudo-random bytes, so the mirror is the same on every run.
 *
 * @module
 */

/** One object of the mirror. */
export interface MirrorFile {
  /** Path under the mirror root, e.g. `streams/v1/index.json`. */
  path: string;
  body: Uint8Array;
  contentType: string;
}

/** The version every product of the sample mirror has (a real mirror's format). */
const SAMPLE_VERSION = "20250824_13:00";

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function bytesOf(seed: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

interface ProductSpec {
  os: string;
  release: string;
  variant: string;
  title: string;
  /** `squashfs` (container) or `disk-kvm.img` (virtual machine). */
  rootfs: "squashfs" | "disk-kvm.img";
  sizes: { meta: number; rootfs: number };
}

const PRODUCTS: ProductSpec[] = [
  {
    os: "alpine",
    release: "3.20",
    variant: "default",
    title: "Alpine 3.20",
    rootfs: "squashfs",
    sizes: { meta: 1_536, rootfs: 196_608 },
  },
  {
    os: "debian",
    release: "bookworm",
    variant: "cloud",
    title: "Debian bookworm",
    rootfs: "disk-kvm.img",
    sizes: { meta: 2_048, rootfs: 393_216 },
  },
];

/**
 * Builds the sample mirror.
 *
 * @example Usage
 * ```ts
 * import { sampleMirror } from "./mirror.ts";
 * const files = await sampleMirror();
 * files.map((f) => f.path).includes("streams/v1/index.json"); // true
 * ```
 */
export async function sampleMirror(): Promise<MirrorFile[]> {
  const files: MirrorFile[] = [];
  const products: Record<string, unknown> = {};
  let seed = 1;
  for (const p of PRODUCTS) {
    const arch = "amd64";
    const dir = `images/${p.os}/${p.release}/${arch}/${p.variant}/${SAMPLE_VERSION}`;
    const meta = bytesOf(seed++, p.sizes.meta);
    const rootfs = bytesOf(seed++, p.sizes.rootfs);
    const rootfsName = p.rootfs === "squashfs" ? "rootfs.squashfs" : "disk.qcow2";
    files.push(
      { path: `${dir}/incus.tar.xz`, body: meta, contentType: "application/x-xz" },
      { path: `${dir}/${rootfsName}`, body: rootfs, contentType: "application/octet-stream" },
    );
    const combinedKey = p.rootfs === "squashfs"
      ? "combined_squashfs_sha256"
      : "combined_disk-kvm-img_sha256";
    products[`${p.os}:${p.release}:${arch}:${p.variant}`] = {
      aliases: `${p.os}/${p.release}/${p.variant},${p.os}/${p.release}`,
      arch,
      os: p.os,
      release: p.release,
      "release_title": p.title,
      variant: p.variant,
      versions: {
        [SAMPLE_VERSION]: {
          items: {
            "incus.tar.xz": {
              ftype: "incus.tar.xz",
              path: `${dir}/incus.tar.xz`,
              sha256: await sha256(meta),
              size: meta.byteLength,
              [combinedKey]: await sha256(concat(meta, rootfs)),
            },
            [rootfsName]: {
              ftype: p.rootfs,
              path: `${dir}/${rootfsName}`,
              sha256: await sha256(rootfs),
              size: rootfs.byteLength,
            },
          },
        },
      },
    };
  }
  const encode = (doc: unknown) => new TextEncoder().encode(JSON.stringify(doc, null, 2) + "\n");
  const images = {
    "content_id": "images",
    datatype: "image-downloads",
    format: "products:1.0",
    products,
  };
  const index = {
    format: "index:1.0",
    index: {
      images: {
        datatype: "image-downloads",
        path: "streams/v1/images.json",
        format: "products:1.0",
        products: Object.keys(products),
      },
    },
  };
  files.push(
    { path: "streams/v1/images.json", body: encode(images), contentType: "application/json" },
    { path: "streams/v1/index.json", body: encode(index), contentType: "application/json" },
  );
  return files;
}
