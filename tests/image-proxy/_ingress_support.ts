/**
 * The ingress recipe for tests: `deploy/image-proxy/nginx.conf.template` rendered on loopback high
 * ports with a fresh self-signed certificate (for `localhost` and 127.0.0.1), and Debian's nginx
 * started on it in the foreground.
 *
 * @module
 */
import assert from "node:assert/strict";
import { waitUntil } from "@svc/testing";
import { selfSignedCert } from "@svc/testing/tls";
import { freePort } from "./_test_support.ts";

const TEMPLATE = new URL("../../deploy/image-proxy/nginx.conf.template", import.meta.url);
const NGINX = "/usr/sbin/nginx";

/** What the ingress tests need that may be missing, as `skipSuite`'s `needs`; else undefined. */
export function ingressMissing(): string | undefined {
  for (const [path, pkg] of [[NGINX, "nginx"], ["/usr/bin/openssl", "openssl"]]) {
    try {
      Deno.statSync(path);
    } catch {
      return `${pkg} (apt-get install -y ${pkg})`;
    }
  }
  return undefined;
}

/** The template's text. */
export function ingressTemplate(): Promise<string> {
  return Deno.readTextFile(TEMPLATE);
}

/** The template with every `{{NAME}}` replaced; a missing value is an error. */
export function renderIngress(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`Cannot render the ingress: no value for ${name}`);
    return value;
  });
}

async function run(cmd: string, args: string[]) {
  const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).output();
  assert.ok(out.success, `${cmd} failed: ${new TextDecoder().decode(out.stderr)}`);
}

/** A running ingress. */
export interface Ingress {
  /** `http://127.0.0.1:<port>` */
  http: string;
  /** `https://localhost:<port>` */
  https: string;
  /** The certificate (PEM file) clients must trust. */
  certFile: string;
  /** A fetch client that trusts it. */
  client: Deno.HttpClient;
  /** The access log so far (`time method status cache-status bytes time upstream-status`). */
  accessLog(): Promise<string>;
  stop(): Promise<void>;
}

/** Renders the recipe in front of `upstream` (host:port) and starts nginx. */
export async function startIngress(upstream: string): Promise<Ingress> {
  const dir = await Deno.makeTempDir({ prefix: "ingress-" });
  // nginx's workers (nobody, when the master is root) write the cache and temp files.
  await Deno.chmod(dir, 0o777);
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const { cert: certFile } = await selfSignedCert(dir);
  const conf = renderIngress(await ingressTemplate(), {
    HTTP_LISTEN: `127.0.0.1:${httpPort}`,
    HTTPS_LISTEN: `127.0.0.1:${httpsPort} ssl`,
    UPSTREAM: upstream,
    CERT: certFile,
    KEY: `${dir}/key.pem`,
    RUN_DIR: dir,
    CACHE_DIR: `${dir}/cache`,
  });
  await Deno.writeTextFile(`${dir}/nginx.conf`, conf);
  const base = ["-p", dir, "-e", `${dir}/error.log`, "-c", `${dir}/nginx.conf`];
  await run(NGINX, ["-t", "-q", ...base]);
  const nginx = new Deno.Command(NGINX, {
    args: [...base, "-g", "daemon off;"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(certFile)] });
  const http = `http://127.0.0.1:${httpPort}`;
  const stop = async () => {
    client.close();
    try {
      nginx.kill("SIGTERM");
    } catch { /* exited */ }
    await nginx.status;
    await Deno.remove(dir, { recursive: true });
  };
  try {
    await waitUntil(
      () => fetch(`${http}/healthz`).then((r) => (r.body?.cancel(), r.status === 404), () => false),
      { what: "nginx listening", timeoutMs: 10_000, intervalMs: 20 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    http,
    https: `https://localhost:${httpsPort}`,
    certFile,
    client,
    accessLog: () => Deno.readTextFile(`${dir}/access.log`),
    stop,
  };
}
