/**
 * End-to-end harness for image-proxy: a signature-checking S3 server (`@20minutes/s3rver`) seeded
 * with the sample mirror, an optional fault proxy in front of it, and the proxy started as a real
 * process with its development permission set (network to its listen address and the store
 * only, no write).
 *
 * @module
 */
import { PutObjectCommand, type PutObjectCommandInput, S3Client } from "@aws-sdk/client-s3";
import { type ServiceProcess, startService } from "@svc/testing";
import { sampleMirror } from "../../deploy/dev/image-proxy/mirror.ts";
import {
  S3RVER_CREDENTIALS,
  type S3Server,
  startS3Server,
} from "../../deploy/dev/image-proxy/s3_server.ts";
import { seedMirror } from "../../deploy/dev/image-proxy/seed.ts";
import { devPermissions } from "../../deploy/dev/image-proxy/run.ts";
import { type FaultProxy, startFaultProxy } from "./fault_proxy.ts";

export const BUCKET = "images";
export const PREFIX = "mirror/";
const ENTRY = new URL("../../services/image-proxy/main.ts", import.meta.url).pathname;

/** A seeded S3 server and a client of it. */
export interface Store {
  s3: S3Server;
  client: S3Client;
  put(
    key: string,
    body: Uint8Array | string,
    extra?: Partial<PutObjectCommandInput>,
  ): Promise<void>;
  close(): Promise<void>;
}

/** Starts s3rver with the sample mirror under {@linkcode PREFIX}. */
export async function startStore(): Promise<Store> {
  const s3 = await startS3Server({ buckets: [BUCKET] });
  const client = new S3Client({
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: "us-east-1",
    credentials: S3RVER_CREDENTIALS,
  });
  await seedMirror(client, { bucket: BUCKET, prefix: PREFIX, files: await sampleMirror() });
  return {
    s3,
    client,
    async put(key, body, extra = {}) {
      const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
      await client.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: PREFIX + key, Body: bytes, ...extra }),
      );
    },
    async close() {
      client.destroy();
      await s3.close();
    },
  };
}

/** Options of {@linkcode startProxyProcess}. */
export interface ProxyProcessOptions {
  /** S3 endpoint the proxy uses (the store's or a fault proxy's). */
  endpoint: string;
  args?: string[];
  env?: Record<string, string>;
  /** Wait for /readyz 200 before returning. @default {true} */
  waitReady?: boolean;
  /** More hosts the process may reach (a metrics collector). */
  extraHosts?: string[];
  /** Polled until it answers 200 before returning; `null` sends no request. @default {"/healthz"} */
  healthPath?: string | null;
}

/** The proxy process and helpers. */
export interface ProxyProcess extends ServiceProcess {
  /** Parsed JSON records written so far. */
  records(): Record<string, unknown>[];
  readyz(): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Polls /readyz until `pred` holds. */
  until(
    pred: (r: { status: number; body: Record<string, unknown> }) => boolean,
    ms?: number,
  ): Promise<void>;
}

/** Starts `services/image-proxy/main.ts` on a free loopback port. */
export async function startProxyProcess(options: ProxyProcessOptions): Promise<ProxyProcess> {
  const port = await freePort();
  const listen = `127.0.0.1:${port}`;
  const svc = await startService({
    entry: ENTRY,
    permissions: devPermissions(listen, options.endpoint, options.extraHosts),
    args: withDefaults(options.args ?? [], [
      ["--bucket", BUCKET],
      ["--prefix", PREFIX],
      ["--region", "us-east-1"],
      ["--listen", listen],
      ["--s3.endpoint", options.endpoint],
      ["--s3.force-path-style", undefined],
      ["--proxy.readiness-interval", "200ms"],
      ["--proxy.shutdown-delay", "0s"],
      ["--log.level", "debug"],
    ]),
    env: {
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      ...options.env,
    },
    timeoutMs: 60_000,
    healthPath: options.healthPath,
  });
  async function readyz() {
    const res = await fetch(svc.url + "/readyz");
    return { status: res.status, body: await res.json() };
  }
  const proc: ProxyProcess = {
    ...svc,
    records: () =>
      svc.output().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)),
    readyz,
    async until(pred, ms = 30_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const r = await readyz();
        if (pred(r)) return;
        if (Date.now() > deadline) {
          throw new Error(`readiness never matched; last ${JSON.stringify(r)}\n${svc.output()}`);
        }
        // real clock: poll interval of a wait bounded by `deadline` that checks /readyz itself
        await new Promise((res) => setTimeout(res, 50));
      }
    },
  };
  if (options.waitReady ?? true) await proc.until((r) => r.status === 200);
  return proc;
}

/** `args` plus each default flag the test did not give itself (a flag may appear only once). */
function withDefaults(args: string[], defaults: [string, string | undefined][]): string[] {
  const given = new Set(
    args.filter((a) => a.startsWith("--")).map((a) => a.split("=")[0].replaceAll("_", "-")),
  );
  const extra = defaults.filter(([flag]) => !given.has(flag))
    .flatMap(([flag, value]) => value === undefined ? [flag] : [flag, value]);
  return [...extra, ...args];
}

/** A free loopback port (the proxy's permission set names its exact listen address). */
export async function freePort(): Promise<number> {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = l.addr.port;
  l.close();
  await Promise.resolve();
  return port;
}

/** A fault proxy in front of a store. */
export function faultsFor(store: Store): Promise<FaultProxy> {
  return startFaultProxy(new URL(store.s3.endpoint).host);
}

/** Sends raw bytes on a new connection and returns everything read until the server closes. */
export async function rawRequest(port: number, bytes: string | Uint8Array): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes);
    let out = "";
    const buf = new Uint8Array(64 * 1024);
    const dec = new TextDecoder();
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      out += dec.decode(buf.subarray(0, n), { stream: true });
    }
    return out;
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
}
