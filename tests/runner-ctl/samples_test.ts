/**
 * The samples of `deploy/runner-ctl/samples/`, through the commands of
 * deploy/runner-ctl/README.md run verbatim: `validate` accepts the baseline against a fake Incus
 * that has exactly its project and profile (and refuses it when the live state drifts), and
 * `proof verify` accepts the sample proof for its host (and refuses another host id).
 */
import assert from "node:assert/strict";
import { runBlock, shellBlocks } from "../repo/readme_blocks.ts";
import { startFakeIncus } from "../fakes/incus/fake_incus.ts";

const README = "deploy/runner-ctl/README.md";
const ROOT = new URL("../../", import.meta.url).pathname;

async function block(command: string) {
  const blocks = shellBlocks(README, await Deno.readTextFile(`${ROOT}${README}`));
  const found = blocks.find((b) => b.text.includes(command));
  assert.ok(found, `${README}: a block with ${command}`);
  return found;
}

Deno.test("the sample baseline passes validate against a host that matches it", async () => {
  const baseline = JSON.parse(
    await Deno.readTextFile(`${ROOT}deploy/runner-ctl/samples/baseline.json`),
  );
  const project = baseline.projects[0];
  const incus = await startFakeIncus();
  try {
    incus.projects.set(project.name, {
      name: project.name,
      config: { "features.profiles": "true", ...project.config },
    });
    incus.profiles.set(`${project.name}/default`, {
      name: "default",
      description: "",
      config: { ...project.profiles[0].config },
      devices: {},
    });
    const b = await block(" validate ");
    assert.equal(b.mark?.kind, "tested-by");
    const [ran] = await runBlock(b, { env: { INCUS_SOCKET: incus.path } });
    assert.match(ran.stdout, /\S/, "one line on success");
    // The live state drifts: the same command fails.
    incus.profiles.get(`${project.name}/default`)!.config["security.secureboot"] = "false";
    await assert.rejects(runBlock(b, { env: { INCUS_SOCKET: incus.path } }));
  } finally {
    await incus.close();
  }
});

Deno.test("the sample proof verifies for its host, and not for another", async () => {
  const b = await block("proof verify");
  const [ran] = await runBlock(b);
  const payload = JSON.parse(ran.stdout);
  assert.equal(payload.host_id, "host-01.example");
  assert.equal(payload.scale_set.name, "linux-x64");
  const other = { ...b, commands: b.commands.map((c) => c.replace("host-01.example", "host-02")) };
  await assert.rejects(runBlock(other));
});
