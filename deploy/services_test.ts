import assert from "node:assert/strict";
import { SERVICES } from "./services.ts";

const root = new URL("../", import.meta.url);

/** Every `deno run` of the service's entry in its `deno.json` tasks, as [task, flags]. */
async function entryTasks(name: string, entry: string): Promise<[string, string][]> {
  const path = new URL(`services/${name}/deno.json`, root);
  const { tasks = {} } = JSON.parse(await Deno.readTextFile(path));
  return Object.entries(tasks as Record<string, string>)
    .filter(([, command]) => command.includes("main.ts"))
    .map(([task, command]) => {
      const match = command.match(/^cd \.\.\/\.\. && deno run (?:--watch )?(.*?) (\S+main\.ts)/);
      assert.ok(match, `${name} task ${task} runs from the repository root: ${command}`);
      assert.equal(match[2], entry, `${name} task ${task} runs ${entry}`);
      return [task, match[1]];
    });
}

/** The permission flags, then `--v8-flags=…` when the service has V8 flags (as compiled). */
function deployedFlags(svc: (typeof SERVICES)[number]): string {
  const v8 = svc.v8Flags?.length ? [`--v8-flags=${svc.v8Flags.join(",")}`] : [];
  return [...svc.permissions, ...v8].join(" ");
}

Deno.test("each service's deno.json tasks run with exactly its permissions and V8 flags in deploy/", async () => {
  for (const svc of SERVICES) {
    const tasks = await entryTasks(svc.name, svc.entry);
    assert.ok(tasks.length > 0, `${svc.name} has a task that runs ${svc.entry}`);
    for (const [task, flags] of tasks) {
      assert.equal(flags, deployedFlags(svc), `${svc.name} task ${task} has drifted`);
    }
  }
});

Deno.test("a task without the service's V8 flags counts as drifted", () => {
  const svc = SERVICES.find((s) => s.name === "mcp-server")!;
  assert.ok(svc.v8Flags?.length, "mcp-server has V8 flags (its memory under load)");
  assert.notEqual(svc.permissions.join(" "), deployedFlags(svc));
  assert.equal(
    deployedFlags(svc),
    `${svc.permissions.join(" ")} --v8-flags=${svc.v8Flags.join(",")}`,
  );
});

Deno.test("root deno.json tasks that run a service use exactly its permissions in deploy/", async () => {
  const { tasks } = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const todoApi = SERVICES.find((s) => s.name === "todo-api")!;
  for (const task of ["todo-api", "migrate", "keys"]) {
    assert.ok(tasks[task], `root task ${task} exists (the README runs it from the root)`);
  }
  for (const [task, command] of Object.entries(tasks as Record<string, string>)) {
    const svc = SERVICES.find((s) => command.includes(` ${s.entry}`));
    if (!svc) continue;
    const match = command.match(/^deno run (.*?) (\S+main\.ts)/);
    assert.ok(match, `root task ${task} runs ${svc.entry} with deno run: ${command}`);
    assert.equal(match[1], svc.permissions.join(" "), `root task ${task} has drifted`);
  }
  assert.match(tasks.migrate, new RegExp(` ${todoApi.entry} migrate$`));
  assert.match(tasks.keys, new RegExp(` ${todoApi.entry} keys$`));
});

Deno.test("no deployed permission set is -A, grants FFI or leaves env unscoped", () => {
  for (const svc of SERVICES) {
    for (const flag of svc.permissions) {
      assert.ok(flag.startsWith("--allow-"), `${svc.name}: ${flag}`);
      assert.notEqual(flag, "--allow-all", svc.name);
      assert.equal(flag.startsWith("--allow-ffi"), false, `${svc.name}: ${flag}`);
      assert.notEqual(flag, "--allow-env", `${svc.name}: env is scoped to its settings`);
    }
  }
});

Deno.test("every container file runs the binary that deno task compile builds", async () => {
  for (const svc of SERVICES) {
    if (svc.container === false) continue; // a host service (systemd), not a container
    const file = await Deno.readTextFile(new URL(`deploy/${svc.name}/Containerfile`, root));
    assert.match(file, new RegExp(`^COPY dist/${svc.name} /usr/local/bin/${svc.name}$`, "m"));
    assert.match(file, new RegExp(`^ENTRYPOINT \\["/usr/local/bin/${svc.name}"\\]$`, "m"));
  }
});
