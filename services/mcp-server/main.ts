/**
 * mcp-server entry: `main.ts [--transport stdio|http] [flags]` (see `--help`). Resolves the
 * settings, then serves (`serve.ts`) until the client goes away (stdio) or the server shuts down
 * (HTTP); `--list-capabilities` prints the capabilities instead.
 * @module
 */
import { type MainIo, runMain } from "@svc/shared/main";
import { type EnvLookup, SettingsError } from "@svc/shared/settings";
import { IDENTITY } from "./identity.ts";
import { capabilityListing, loadCapabilities, serve } from "./serve.ts";
import { SETTINGS } from "./settings.ts";

const USAGE = `Usage: mcp-server [--transport stdio|http] [flags]

MCP server with three tools (search_api, describe_api, execute) over the demo host's
capabilities (records.*, time.now), every operation of the --openapi documents
(NAME.<operation>) and every tool of the --mcp servers (NAME.<tool>). Flags (each also
MCP_<KEY> in the environment):
`;

/** Runs the server; resolves to the exit code. */
export async function main(args: string[], env: EnvLookup, io: MainIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.out(USAGE + SETTINGS.help());
    return 0;
  }
  const { values: settings, positionals } = SETTINGS.resolve({ args, env });
  if (positionals.length > 0) {
    throw new SettingsError("args", `Cannot start: unexpected argument (see --help)`);
  }
  if (settings.list_capabilities) {
    const capabilities = await loadCapabilities(settings, { env });
    try {
      io.out(capabilityListing(capabilities));
    } finally {
      await capabilities.close();
    }
    return 0;
  }
  const server = await serve(settings, { env });
  await server.finished;
  return 0;
}

if (import.meta.main) await runMain(main, { name: "mcp-server", identity: IDENTITY });
