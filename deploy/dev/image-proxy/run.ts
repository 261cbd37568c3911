/**
 * `deno task dev` for image-proxy: starts a local S3-compatible server (`@20minutes/s3rver`, on
 * loopback, signature checks on), seeds it with the sample simplestreams mirror, and runs the
 * proxy in front of it as its own process, with the proxy's scoped permissions.
 *
 * ```sh
 * curl -s http://127.0.0.1:8082/streams/v1/index.json
 * ```
 *
 * Its two addresses are settings (`--help`): a start-up failure is one line, like the services'
 * (`image-proxy-dev: Cannot listen on 127.0.0.1:8092 (s3): the address is already in use (change
 * --s3-listen / IMGPROXY_DEV_S3_LISTEN)`, exit 2; any other, exit 1), never a stack trace.
 *
 * @module
 */
import { IDENTITY } from "../../../services/image-proxy/identity.ts";
import { S3Client } from "@aws-sdk/client-s3";
import { createLogger } from "@svc/shared/log";
import { type MainIo, runMain } from "@svc/shared/main";
import { parseAddr, probeAddr } from "@svc/shared/server";
import { defineSettings, type EnvLookup, helpRequested } from "@svc/shared/settings";
import { sampleMirror } from "./mirror.ts";
import { S3RVER_CREDENTIALS, startS3Server } from "./s3_server.ts";
import { seedMirror } from "./seed.ts";
import { SERVICES } from "../../services.ts";

const DEPLOYED = SERVICES.find((s) => s.name === "image-proxy")!;

/** The proxy's deployed permissions other than network, and its V8 flags (`deploy/services.ts`). */
const PERMISSIONS_BESIDES_NET: readonly string[] = [
  ...DEPLOYED.permissions.filter((p) => !p.startsWith("--allow-net")),
  ...(DEPLOYED.v8Flags?.length ? [`--v8-flags=${DEPLOYED.v8Flags.join(",")}`] : []),
];

/** Where `deno task dev` puts things. */
const DEV = {
  bucket: "images",
  directory: ".data/image-proxy-s3",
} as const;

const ADDR = (value: string) => {
  try {
    parseAddr(value);
    return undefined;
  } catch {
    return "expected host:port such as 127.0.0.1:8082";
  }
};

/** The dev runner's settings: its two addresses (on loopback: its network grant is 127.0.0.1). */
const SETTINGS = defineSettings({
  prefix: "IMGPROXY_DEV",
  settings: {
    "listen": {
      type: "string",
      default: "127.0.0.1:8082",
      validate: ADDR,
      help: "the proxy's listen address",
    },
    "s3_listen": {
      type: "string",
      default: "127.0.0.1:8092",
      validate: ADDR,
      help: "the local S3 server's listen address",
    },
  },
});

/**
 * The proxy's permissions in development and tests: its listen address, the local store and any
 * `extraHosts` (a metrics collector) only; no write.
 */
export function devPermissions(
  listen: string,
  s3Endpoint: string,
  extraHosts: string[] = [],
): string[] {
  return [
    `--allow-net=${[listen, new URL(s3Endpoint).host, ...extraHosts].join(",")}`,
    ...PERMISSIONS_BESIDES_NET,
  ];
}

async function main(args: string[], env: EnvLookup, io: MainIo): Promise<number> {
  if (helpRequested(args)) {
    io.out(
      "image-proxy-dev: a local S3 server seeded with the sample mirror, and the proxy on it\n\n" +
        "Usage: deno task --cwd services/image-proxy dev [flags]\n\n" + SETTINGS.help(),
    );
    return 0;
  }
  const { values } = SETTINGS.resolve({ args, env });
  // Both addresses are checked before anything starts: a taken one is one line naming it.
  const listen = probeAddr({
    name: "proxy",
    addr: values.listen,
    setting: SETTINGS.names("listen"),
  });
  const s3Addr = parseAddr(
    probeAddr({ name: "s3", addr: values.s3_listen, setting: SETTINGS.names("s3_listen") }),
  );
  const logger = createLogger({
    service: { name: "image-proxy-dev", build: IDENTITY.build },
    fields: { component: "dev" },
  });
  // Objects are kept in ./.data (like todo-api's embedded database) and re-seeded on each start.
  await Deno.mkdir(DEV.directory, { recursive: true });
  const s3 = await startS3Server({
    buckets: [DEV.bucket],
    hostname: s3Addr.hostname,
    port: s3Addr.port,
    directory: DEV.directory,
  });
  const client = new S3Client({
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: "us-east-1",
    credentials: S3RVER_CREDENTIALS,
  });
  await seedMirror(client, { bucket: DEV.bucket, prefix: "", files: await sampleMirror() });
  client.destroy();
  logger.info("local S3 ready and seeded", { endpoint: s3.endpoint, bucket: DEV.bucket });
  const entry = new URL("../../../services/image-proxy/main.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...devPermissions(listen, s3.endpoint),
      entry,
      "--bucket",
      DEV.bucket,
      "--listen",
      listen,
      "--s3.endpoint",
      s3.endpoint,
      "--s3.force-path-style",
      "--region",
      "us-east-1",
      "--proxy.shutdown-delay",
      "0s",
    ],
    env: {
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
    stdin: "null",
  }).spawn();
  const forward = (signal: Deno.Signal) => () => {
    try {
      child.kill(signal);
    } catch { /* already gone */ }
  };
  // Kept until this process exits: a stop signal that comes after the proxy ended (dev's SIGTERM
  // after a Ctrl-C) must not end this process with 143 in place of the proxy's own exit code.
  Deno.addSignalListener("SIGINT", forward("SIGINT"));
  Deno.addSignalListener("SIGTERM", forward("SIGTERM"));
  const { code } = await child.status;
  await s3.close();
  return code;
}

if (import.meta.main) await runMain(main, { name: "image-proxy-dev" });
