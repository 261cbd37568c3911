/**
 * API listen address, first that is set: `--addr`; `--server-hostname` + `--server-port`
 * (fed by `SERVER_HOSTNAME`, `SERVER_PORT`, then `PORT`); default `:8080`.
 *
 * @module
 */

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
