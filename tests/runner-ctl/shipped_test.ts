/**
 * runner-ctl as shipped: the binary's flags from `deploy/services.ts` (permissions and V8
 * `--jitless`), the arguments of the packaged unit's `ExecStart` (`--config FILE`), the packaged
 * `deploy/runner-ctl/config.example.yaml` and the token drop-in's variable
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

/** The unit's ExecStart arguments with its config path replaced by `config`. */
async function unitArgs(config: string): Promise<string[]> {
  const unit = parseUnit(await Deno.readTextFile(`${ROOT}deploy/runner-ctl/runner-ctl.service`));
  const { args } = execStart(unit);
  const at = args.indexOf("--config");
  assert.ok(at >= 0 && args[at + 1], "the unit passes --config FILE");
  return args.map((a, i) => i === at + 1 ? config : a);
}

/** The packaged example with the keys named in the module doc set for the fakes. */
async function adaptedExample(set: [string[], string][]): Promise<string> {
  const doc = parseDocument(
    await Deno.readTextFile(`${ROOT}deploy/runner-ctl/config.example.yaml`),
  );
  for (const [path, value] of set) doc.setIn(path, value);
  return doc.toString();
}

Deno.test({
  name: "runner-ctl as the unit starts it, with the packaged example config, gets ready",
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
        await adaptedExample([
          [["github", "config_url"], sim.github.configUrl],
          [["incus", "socket"], sim.incus.path],
          [["incus", "project"], "default"],
          [["incus", "diagnostics_dir"], `${sim.dir}/diagnostics`],
        ]),
      );
      const tokenFile = `${sim.dir}/github-token`; // the drop-in's %d/github-token
      await Deno.writeTextFile(tokenFile, sim.env().RUNNER_CTL_GITHUB_TOKEN + "\n");
      const form = await shippedForm("runner-ctl");
      assert.ok(form.flags.includes("--v8-flags=--jitless"), "the unit's MemoryDenyWriteExecute");
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", ...form.flags, form.entry, ...await unitArgs(config)],
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
