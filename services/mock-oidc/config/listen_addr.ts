/**
 * API listen address, first that is set: `--addr`; `--server-hostname` + `--server-port`
 * (fed by `SERVER_HOSTNAME`, `SERVER_PORT`, then `PORT`); default `:8080`.
 *
 * @module
 */

import { parseAddr } from "@svc/shared/server";
import { configError } from "./config_error.ts";

/** Inputs from the resolved settings. */
export interface ListenInputs {
  addr?: string;
  serverHostname?: string;
  serverPort?: number;
}

/** Go-style `host:port` for the API listener. */
export function resolveListenAddr(inputs: ListenInputs): string {
  if (inputs.addr) return inputs.addr;
  const host = inputs.serverHostname ?? "";
  const port = inputs.serverPort ?? 8080;
  return `${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

/** Throws a `SettingsError` naming `flag` unless `addr` is a usable `host:port`. */
export function checkListenAddr(addr: string, flag: string): void {
  try {
    parseAddr(addr);
  } catch {
    throw configError(flag, 'expected host:port such as ":8080" or "127.0.0.1:0"');
  }
}
