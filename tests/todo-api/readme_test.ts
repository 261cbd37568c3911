/**
 * End-to-end: the todo-api commands of the root README (run from the repository root, the root
 * `deno task`s) and of `services/todo-api/README.md` (run from `services/todo-api`, its own
 * tasks), as written (`bash`, the tasks' real permissions): migrate → key → serve → create →
 * list. The README runner (`tests/readme/`) leaves these blocks to this test (their marks). Only where the data goes and which port serve takes differ, through the service's own
 * settings (`TODOAPI_DATA_DIR` under `./.data`, `TODOAPI_ADDR`), so the test never touches a
 * real `./.data/todo-api`; the port in the curl lines is rewritten to the one serve picked.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The first three `sh` blocks of a README's todo-api part (root: its todo-api section). */
async function readmeBlocks(file: string): Promise<string[]> {
  const readme = await Deno.readTextFile(`${ROOT}${file}`);
  const section = file === "README.md"
    ? readme.split(/^### /m).find((s) => s.startsWith("todo-api"))
    : readme;
  assert.ok(section, `${file} has a todo-api section`);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).slice(0, 3);
}

async function bash(script: string, env: Record<string, string>, cwd = ROOT) {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * Reads serve's log lines until the API listener's URL shows up, then keeps draining them (a
 * closed pipe would kill serve at its next log line).
 */
async function apiUrl(stream: ReadableStream<Uint8Array>, seen: string[]): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve ended before listening:\n${seen.join("\n")}`);
    buffer += value;
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    for (const line of parts) {
      seen.push(line);
      const m = /"listener":"api","url":"([^"]+)"/.exec(line);
      if (m) {
        (async () => {
          while (!(await reader.read()).done) { /* drain */ }
        })().catch(() => {});
        return m[1];
      }
    }
  }
}

for (
  const [file, dir] of [["README.md", ""], ["services/todo-api/README.md", "services/todo-api"]]
) {
  Deno.test({
    name: `${file}'s todo-api commands work from ./${dir}: migrate, key, serve, use`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: () => readmeStory(file, `${ROOT}${dir}`),
  });
}

async function readmeStory(file: string, cwd: string) {
  {
    const [setup, serveBlock, use] = await readmeBlocks(file);
    assert.ok(setup && serveBlock && use, "three sh blocks: setup, serve, use");
    assert.match(setup, /^KEY=\$\(deno task keys create /m);
    const scratch = `./.data/readme-test-${crypto.randomUUID()}`;
    const env = { TODOAPI_DATA_DIR: `${scratch}/todo-api`, TODOAPI_DATABASE_URL: "" };
    try {
      // The setup block's shell keeps KEY; print it afterwards to read it here.
      const done = await bash(`${setup}\nprintf 'KEY=%s\\n' "$KEY"`, env, cwd);
      assert.equal(done.code, 0, done.stderr);
      const key = /^KEY=(.*)$/m.exec(done.stdout)?.[1] ?? "";
      assert.match(key, /^todo_\S+$/, "KEY=$(…) captured exactly the key");

      const serveCommand = serveBlock.split("\n")[0].replace(/\s+#.*$/, "");
      const serve = new Deno.Command("bash", {
        args: ["-c", `exec ${serveCommand}`],
        cwd,
        env: { ...env, TODOAPI_ADDR: "127.0.0.1:0", TODOAPI_METRICS_ADDR: "127.0.0.1:0" },
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const log: string[] = [];
      try {
        const url = await apiUrl(serve.stdout, log);
        const port = new URL(url).port;
        const script = use.replaceAll("localhost:8080", `127.0.0.1:${port}`);
        const used = await bash(script, { ...env, KEY: key }, cwd);
        assert.equal(used.code, 0, used.stderr);
        const [created, listed] = used.stdout.trim().split("\n").map((l) => JSON.parse(l));
        assert.equal(used.stdout.trim().split("\n").length, 2, used.stdout);
        assert.equal(created.title, "milk");
        assert.equal(created.status, "open");
        assert.deepEqual(listed.todos.map((t: { id: string }) => t.id), [created.id]);
      } finally {
        // `deno task` passes SIGTERM on to the deno process it runs: a graceful stop.
        serve.kill("SIGTERM");
        assert.equal((await serve.status).code, 0, log.join("\n"));
      }
      // `deno run … main.ts` from the root sees the same database the tasks wrote.
      const direct = await bash(
        "deno run -A services/todo-api/main.ts keys list",
        env,
      );
      assert.equal(direct.code, 0, direct.stderr);
      const subject = /--subject (\S+)/.exec(setup)?.[1];
      assert.match(direct.stdout, new RegExp(`\\t${subject}\\tuser\\t`));
    } finally {
      await Deno.remove(`${ROOT}${scratch}`, { recursive: true }).catch(() => {});
    }
  }
}
