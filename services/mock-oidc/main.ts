/**
 * mock-oidc entry: read flags and JSON configuration, build the core and app, listen.
 * Invalid configuration stops startup with one line naming the key (exit code 2).
 *
 * @module
 */

import { createLogger } from "@svc/shared/log";
import { startServer } from "@svc/shared/server";
import { resolveSettings } from "@svc/shared/settings";
import { createApp } from "./app.ts";
import { ConfigError } from "./config/config_error.ts";
import { resolveListenAddr } from "./config/listen_addr.ts";
import { loadJsonConfig } from "./config/load_config.ts";
import { selfSignedCertificate, type TlsPair } from "./config/self_signed_cert.ts";
import { createCore } from "./core.ts";
import { SETTINGS } from "./settings.ts";

/** Options of {@linkcode main}. */
export interface MainOptions {
  args: string[];
  env: (name: string) => string | undefined;
}

/** Resolve configuration, start the listeners and wait until shutdown. */
export async function main(options: MainOptions): Promise<void> {
  const { values } = resolveSettings(SETTINGS, { args: options.args, env: options.env });
  const { config } = await loadJsonConfig({ env: options.env });
  const tls = await tlsOf(values, config.selfSignedTls);
  const logger = createLogger({
    level: values["log-level"] as "info",
    format: values["log-format"] as "json",
  });
  const core = createCore(config, { env: options.env });
  const handler = createApp({ core });
  const server = await startServer([{
    name: "api",
    addr: resolveListenAddr({
      addr: values["addr"] as string,
      serverHostname: values["server-hostname"] as string,
      serverPort: values["server-port"] as number,
    }),
    handler,
    tls,
  }], {
    logger,
    shutdownGrace: values["shutdown-grace"] as number,
    timeouts: {
      readHeaderMs: values["read-header-timeout"] as number,
      readMs: values["read-timeout"] as number,
      writeMs: values["write-timeout"] as number,
      idleMs: values["idle-timeout"] as number,
    },
  });
  logger.info("mock-oidc ready", { signer: core.signer, algorithm: config.algorithm });
  await server.finished;
}

async function tlsOf(
  values: Record<string, unknown>,
  selfSigned: boolean,
): Promise<TlsPair | undefined> {
  const certFile = values["tls-cert-file"] as string;
  const keyFile = values["tls-key-file"] as string;
  if (certFile || keyFile) {
    if (!certFile || !keyFile) {
      throw new ConfigError(
        certFile ? "--tls-key-file" : "--tls-cert-file",
        "--tls-cert-file and --tls-key-file must be set together",
      );
    }
    return {
      cert: await readPem(certFile, "--tls-cert-file"),
      key: await readPem(keyFile, "--tls-key-file"),
    };
  }
  return selfSigned ? await selfSignedCertificate() : undefined;
}

async function readPem(path: string, flag: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    throw new ConfigError(flag, `cannot read file (${(err as Error).name})`);
  }
}

function fail(message: string): never {
  Deno.stderr.writeSync(new TextEncoder().encode(`mock-oidc: ${message}\n`));
  Deno.exit(2);
}

if (import.meta.main) {
  try {
    await main({ args: Deno.args, env: (name) => Deno.env.get(name) });
  } catch (err) {
    const known = err instanceof ConfigError || (err as Error)?.name === "SettingsError";
    if (!known) throw err;
    fail((err as Error).message.split("\n")[0]);
  }
}
