/**
 * runner-ctl: keeps ephemeral Incus VM runners for one GitHub Actions runner scale set. With no
 * subcommand it runs the controller; `--version` prints build metadata. Logs are JSON lines on
 * stdout; configuration errors go to stderr and exit 1.
 *
 * @module
 */
import { createLogger } from "@svc/shared/log";
import { createLifecycle } from "@svc/shared/lifecycle";
import { type MainIo, runMain } from "@svc/shared/main";
import { type EnvLookup, helpRequested } from "@svc/shared/settings";
import { loadConfig } from "./load_settings.ts";
import { settings } from "./settings.ts";
import { runController } from "./serve.ts";
import { IDENTITY } from "./identity.ts";

const USAGE = `Usage: runner-ctl [flags]    run the controller
       runner-ctl --version    print build metadata
       runner-ctl proof verify <proof> --public-key FILE --expected-host-id HOST
       runner-ctl validate <baseline.json> [--socket PATH]

Flags, variables and configuration keys (flag > variable > file > default):
`;

/** The entry point: resolves the exit code. */
export async function main(args: string[], env: EnvLookup, io: MainIo): Promise<number> {
  // The subcommands load with their use: the controller's start needs neither (nor node:util).
  if (args[0] === "proof") {
    return await (await import("./proof/verify_command.ts")).proofCommand(args.slice(1), io);
  }
  if (args[0] === "validate") {
    return await (await import("./validate/validate_command.ts")).validateCommand(
      args.slice(1),
      io,
    );
  }
  if (helpRequested(args)) {
    io.out(USAGE + settings.help());
    return 0;
  }
  const config = await loadConfig({ args, env });
  const logger = createLogger({ service: IDENTITY });
  let failure: { error: unknown } | undefined;
  const lifecycle = createLifecycle({
    logger,
    onTaskError: (_name, error) => {
      failure ??= { error };
      lifecycle.shutdown("task failed");
    },
  });
  try {
    const code = await runController({ config, env, logger, lifecycle, hostname: Deno.hostname() });
    if (failure) throw failure.error; // runMain prints it on stderr and exits 1
    return code;
  } finally {
    lifecycle.close();
  }
}

if (import.meta.main) {
  await runMain(main, { name: "runner-ctl", identity: IDENTITY, settingsExitCode: 1 });
}
