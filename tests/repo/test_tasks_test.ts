/**
 * `deno task test:<name>` runs one service's unit and end-to-end tests. This checks the tasks
 * against the tree: one per service, every path they name exists, and every test file of the
 * workspace belongs to at least one of them (a new folder cannot fall outside every task).
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const { tasks } = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
  tasks: Record<string, string>;
};

interface Selection {
  paths: string[];
  ignored: string[];
}

function selectionOf(command: string): Selection {
  const words = command.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "test"], command);
  return {
    paths: words.slice(2).filter((w) => !w.startsWith("-")),
    ignored: words.filter((w) => w.startsWith("--ignore=")).flatMap((w) =>
      w.slice("--ignore=".length).split(",")
    ),
  };
}

function under(file: string, path: string): boolean {
  return file === path || file.startsWith(path.replace(/\/$/, "") + "/");
}

async function* testFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) {
      if (["node_modules", ".git", ".data", "dist", "cov"].includes(entry.name)) continue;
      yield* testFiles(`${path}/`);
    } else if (/_test\.ts$/.test(entry.name)) {
      yield path.replace(/^\.\//, "");
    }
  }
}

const serviceTasks = Object.fromEntries(
  Object.entries(tasks).filter(([name]) => name.startsWith("test:")).map((
    [name, command],
  ) => [name, selectionOf(command)]),
);

Deno.test("every service has a test:<service> task over its unit and end-to-end tests", async () => {
  for await (const entry of Deno.readDir(new URL("services/", ROOT))) {
    if (!entry.isDirectory) continue;
    const task = serviceTasks[`test:${entry.name}`];
    assert.ok(task, `no test:${entry.name} task`);
    assert.ok(task.paths.includes(`services/${entry.name}`), `test:${entry.name} unit tests`);
    assert.ok(task.paths.includes(`tests/${entry.name}`), `test:${entry.name} end-to-end tests`);
  }
});

Deno.test("every path a test:<name> task names exists", async () => {
  for (const [name, { paths, ignored }] of Object.entries(serviceTasks)) {
    for (const path of [...paths, ...ignored]) {
      await Deno.stat(new URL(path, ROOT)).catch(() => assert.fail(`${name}: ${path} is missing`));
    }
  }
});

Deno.test("every test file belongs to some test:<name> task", async () => {
  const orphans: string[] = [];
  for await (const file of testFiles("./")) {
    if (under(file, "tests/bench")) continue; // benchmarks are not tests (root "test.exclude")
    const owned = Object.values(serviceTasks).some(({ paths, ignored }) =>
      paths.some((p) => under(file, p)) && !ignored.some((p) => under(file, p))
    );
    if (!owned) orphans.push(file);
  }
  assert.deepEqual(orphans, []);
});
