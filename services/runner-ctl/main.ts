/**
 * runner-ctl: keeps ephemeral Incus VM runners for one GitHub Actions runner scale set. With no
 * subcommand it runs the controller ({@linkcode serve}); `validate` and `proof verify` are
 * subcommands; `--version` prints build metadata. Logs are JSON lines on stdout; configuration
 * errors go to stderr and exit 1.
 *
 * @module
 */
import { type MainIo, runMain } from "@svc/shared/main";
import { type EnvLookup, helpRequested } from "@svc/shared/settings";
import { IDENTITY } from "./identity.ts";
import { loadSettings } from "./load_settings.ts";
import { serve } from "./serve.ts";
import { SETTINGS } from "./settings.ts";

const USAGE = `Usage: runner-ctl [flags]    run the controller
       runner-ctl --version    print build metadata
       runner-ctl proof verify <proof> --public-key FILE --expected-host-id HOST
       runner-ctl validate <baseline.json> [--socket PATH]

Flags, variables and configuration keys (flag > variable > file > default):
`;

/** The entry point: resolves the exit code (0 clean, 1 a task failed or was cut). */
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
    io.out(USAGE + SETTINGS.help());
    return 0;
  }
  const controller = await serve(await loadSettings({ args, env }), { env });
  const report = await controller.finished;
  if (report.failure) throw report.failure.error; // runMain prints it on stderr and exits 1
  return report.forced ? 1 : 0;
}

if (import.meta.main) {
  await runMain(main, { name: "runner-ctl", identity: IDENTITY, settingsExitCode: 1 });
}
