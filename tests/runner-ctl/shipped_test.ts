/**
 * runner-ctl as shipped: the binary's flags from `deploy/services.ts` (permissions and V8
 * `--jitless`), the arguments of the packaged unit's `ExecStart` (`--config FILE`; the template
 * unit `runner-ctl@.service` with an instance name for `%i`), the packaged
 * `deploy/runner-ctl/config.example.yaml` (`instance.example.yaml`) and the token drop-in's variable
 * (`RUNNER_CTL_GITHUB_TOKEN_FILE`). The example is adapted only where the test must point it at
 * the fakes of `tests/fakes`: `github.config_url` (the fake GitHub's URL), `incus.socket` (the
 * fake Incus socket; the unit relies on the default path), `incus.project` (the fake has only
 * `default`) and `incus.diagnostics_dir` (a temporary directory instead of the unit's
 * LogsDirectory). Ready means the controller logged "controller started" and opened its message
 * session.
 */
import assert from "node:assert/strict";
import { parseDocument } from "yaml";
import { execStart, parseUnit } from "../../deploy/runner-ctl/unit.ts";
import { ROOT, shippedForm } from "../_shipped.ts";
import { waitFor, withSimulation } from "./_test_support.ts";

/**
 * The unit's ExecStart arguments (a template unit's with `instance` for `%i`) with its config path
 * replaced by `config`; the path it named is returned too.
 */
async function unitArgs(
  file: string,
  config: string,
  instance?: string,
): Promise<{ args: string[]; named: string }> {
  const unit = parseUnit(await Deno.readTextFile(`${ROOT}deploy/runner-ctl/${file}`));
  const { args } = execStart(unit, instance);
  const at = args.indexOf("--config");
  assert.ok(at >= 0 && args[at + 1], "the unit passes --config FILE");
  return { args: args.map((a, i) => i === at + 1 ? config : a), named: args[at + 1] };
}

/** The packaged example with the keys named in the module doc set for the fakes. */
async function adaptedExample(example: string, set: [string[], string][]): Promise<string> {
  const doc = parseDocument(
    await Deno.readTextFile(`${ROOT}deploy/runner-ctl/${example}`),
  );
  for (const [path, value] of set) doc.setIn(path, value);
  return doc.toString();
}

const CASES = [
  {
    unit: "runner-ctl.service",
    example: "config.example.yaml",
    config: "/etc/runner-ctl/config.yaml",
  },
  // The template unit, started as runner-ctl@linux-x64 (the example's scale set).
  {
    unit: "runner-ctl@.service",
    example: "instance.example.yaml",
    instance: "linux-x64",
    config: "/etc/runner-ctl/linux-x64.yaml",
  },
];

for (const c of CASES) {
  Deno.test({
    name: `runner-ctl as ${c.unit}${c.instance ? ` (instance ${c.instance})` : ""} starts it, ` +
      `with the packaged ${c.example}, gets ready`,
    sanitizeResources: false,
    async fn() {
      await withSimulation({
        github: { target: "example-org", groups: ["runners"] },
        incus: {
          images: { "runner-image": { fingerprint: "b".repeat(64), type: "virtual-machine" } },
        },
      }, async (sim) => {
        const config = `${sim.dir}/config.yaml`;
        await Deno.writeTextFile(
          config,
          await adaptedExample(c.example, [
            [["github", "config_url"], sim.github.configUrl],
            [["incus", "socket"], sim.incus.path],
            [["incus", "project"], "default"],
            [["incus", "diagnostics_dir"], `${sim.dir}/diagnostics`],
          ]),
        );
        const tokenFile = `${sim.dir}/github-token`; // the drop-in's %d/github-token
        await Deno.writeTextFile(tokenFile, sim.env().RUNNER_CTL_GITHUB_TOKEN + "\n");
        const form = await shippedForm("runner-ctl");
        const { args, named } = await unitArgs(c.unit, config, c.instance);
        assert.equal(named, c.config, "the config path the unit names");
        assert.ok(form.flags.includes("--v8-flags=--jitless"), "the unit's MemoryDenyWriteExecute");
        const child = new Deno.Command(Deno.execPath(), {
          args: ["run", ...form.flags, form.entry, ...args],
          cwd: ROOT,
          clearEnv: true,
          env: { DENO_CERT: sim.caFile, RUNNER_CTL_GITHUB_TOKEN_FILE: tokenFile, NO_COLOR: "1" },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        let out = "";
        const pump = (s: ReadableStream<Uint8Array>) =>
          s.pipeThrough(new TextDecoderStream()).pipeTo(
            new WritableStream({ write: (t) => void (out += t) }),
          );
        const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
        let exited = false;
        const status = child.status.then((s) => (exited = true, s));
        try {
          await waitFor(
            "controller started",
            () => exited || /"msg":"controller started"/.test(out),
            60_000,
          );
          assert.equal(exited, false, out);
          await waitFor("the message session", () => sim.github.sessions.size === 1, 60_000);
          assert.doesNotMatch(out, /NotCapable|Requires \w+ access/);
        } finally {
          if (!exited) child.kill("SIGTERM");
          const { code } = await status;
          await pumps;
          assert.equal(code, 0, out);
        }
      });
    },
  });
}
